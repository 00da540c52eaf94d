package io.jkubelet.agent.cli;

import io.jkubelet.config.ConfigException;
import picocli.CommandLine;

/** The entry point: runs {@link JKubeletCommand} and exits with its code. */
public final class Main {
  /** Exit code for a bad flag or configuration value, as picocli's usage errors. */
  public static final int EXIT_USAGE = CommandLine.ExitCode.USAGE;

  private Main() {}

  /**
   * The system property that the launcher sets to {@code kubelet} when started as {@code kubelet}.
   */
  static final String COMMAND_PROPERTY = "jkubelet.command";

  public static void main(String[] args) {
    System.exit(
        "kubelet".equals(System.getProperty(COMMAND_PROPERTY))
            ? KubeletCommandLine.execute(System.out, args)
            : execute(args));
  }

  /** Runs the command line and returns the exit code (tests call this). */
  public static int execute(String... args) {
    CommandLine cmd = new CommandLine(new JKubeletCommand());
    cmd.setExecutionStrategy(JKubeletCommand::executionStrategy);
    cmd.setExitCodeExceptionMapper(
        e ->
            e instanceof ConfigException || e instanceof CommandLine.ParameterException
                ? EXIT_USAGE
                : CommandLine.ExitCode.SOFTWARE);
    cmd.setExecutionExceptionHandler(
        (e, c, parseResult) -> {
          if (e instanceof ConfigException) {
            c.getErr().println("jkubelet: invalid configuration: " + e.getMessage());
            c.getErr().println("Run 'jkubelet " + c.getCommandName() + " --help' for usage.");
            return EXIT_USAGE;
          }
          c.getErr().println("jkubelet: " + e.getMessage());
          return CommandLine.ExitCode.SOFTWARE;
        });
    return cmd.execute(args);
  }
}
