package io.jkubelet.agent.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * The {@code -v/--v} option, a mixin every command that runs the agent's code declares once
 * ({@code @Mixin Verbosity verbosity}), and the log level it sets, as the upstream kubelet's klog
 * verbosity: 0 is INFO, 1 to 3 is DEBUG for jkubelet, 4 and above is TRACE for jkubelet and DEBUG
 * for libraries. {@link JKubeletCommand#executionStrategy} applies it before any command runs.
 */
final class Verbosity {
  @CommandLine.Option(
      names = {"-v", "--v"},
      paramLabel = "LEVEL",
      defaultValue = "0",
      description = "Log verbosity: 0 info, 1-3 debug, 4+ trace (flag only).")
  int level;

  static void configure(CommandLine.ParseResult parseResult) {
    CommandLine.ParseResult p = parseResult;
    int v = 0;
    while (p != null) {
      if (p.hasMatchedOption("--v")) {
        v = p.matchedOptionValue("--v", 0);
      }
      p = p.subcommand();
    }
    apply(v);
  }

  static void apply(int v) {
    if (!(LoggerFactory.getILoggerFactory() instanceof ch.qos.logback.classic.LoggerContext ctx)) {
      return;
    }
    Logger jk = ctx.getLogger("io.jkubelet");
    Logger root = ctx.getLogger(Logger.ROOT_LOGGER_NAME);
    if (v <= 0) {
      jk.setLevel(Level.INFO);
    } else if (v <= 3) {
      jk.setLevel(Level.DEBUG);
    } else {
      jk.setLevel(Level.TRACE);
      root.setLevel(Level.DEBUG);
    }
  }
}
