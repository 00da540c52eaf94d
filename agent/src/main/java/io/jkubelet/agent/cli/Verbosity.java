package io.jkubelet.agent.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * Sets the log level from {@code -v/--v}, as the upstream kubelet's klog verbosity: 0 is INFO, 1 to
 * 3 is DEBUG for jkubelet, 4 and above is TRACE for jkubelet and DEBUG for libraries.
 */
final class Verbosity {
  private Verbosity() {}

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
