package io.jkubelet.agent.cli;

import io.jkubelet.agent.cm.SwapOnException;
import io.jkubelet.config.ConfigException;
import picocli.CommandLine;

/** The entry point: runs {@link JKubeletCommand} and exits with its code. */
public final class Main {
  /** Exit code for a bad flag or configuration value, as picocli's usage errors. */
  public static final int EXIT_USAGE = CommandLine.ExitCode.USAGE;

  /** Exit code for what upstream's kubelet ends on with {@code klog.Fatal}: swap on. */
  public static final int EXIT_FATAL = 255;

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
    return commandLine().execute(args);
  }

  /**
   * The command line {@link #execute} runs. A flag may be given more than once, the last value
   * winning, as upstream's (pflag's) command line takes it.
   */
  static CommandLine commandLine() {
    CommandLine cmd = new CommandLine(new JKubeletCommand());
    cmd.setOverwrittenOptionsAllowed(true);
    cmd.setExecutionStrategy(JKubeletCommand::executionStrategy);
    cmd.setExitCodeExceptionMapper(
        e ->
            e instanceof SwapOnException
                ? EXIT_FATAL
                : e instanceof ConfigException || e instanceof CommandLine.ParameterException
                    ? EXIT_USAGE
                    : CommandLine.ExitCode.SOFTWARE);
    cmd.setExecutionExceptionHandler(
        (e, c, parseResult) -> {
          if (e instanceof SwapOnException) {
            // Upstream's kubelet ends on it with klog.Fatal, whose exit code is 255.
            c.getErr().println("jkubelet: failed to run Kubelet: " + e.getMessage());
            return EXIT_FATAL;
          }
          if (e instanceof ConfigException) {
            c.getErr().println("jkubelet: invalid configuration: " + e.getMessage());
            c.getErr().println("Run 'jkubelet " + c.getCommandName() + " --help' for usage.");
            return EXIT_USAGE;
          }
          c.getErr().println("jkubelet: " + e.getMessage());
          return CommandLine.ExitCode.SOFTWARE;
        });
    return cmd;
  }
}
