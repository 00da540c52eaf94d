package io.jkubelet.agent.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The top-level command; {@code run} and {@code version} do the work. */
@Command(
    name = "jkubelet",
    mixinStandardHelpOptions = true,
    versionProvider = VersionCommand.Provider.class,
    description = "A kubelet-style node agent that runs pods as Docker containers.",
    subcommands = {
      RunCommand.class,
      HollowCommand.class,
      ExportEventsCommand.class,
      VersionCommand.class,
      CommandLine.HelpCommand.class
    })
public final class JKubeletCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getErr());
  }

  /** Configures logging from the verbosity before any command runs. */
  static int executionStrategy(CommandLine.ParseResult parseResult) {
    Verbosity.configure(parseResult);
    return new CommandLine.RunLast().execute(parseResult);
  }
}
