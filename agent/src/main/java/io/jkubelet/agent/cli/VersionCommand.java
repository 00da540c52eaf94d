package io.jkubelet.agent.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code jkubelet version}. */
@Command(name = "version", description = "Print the version.", mixinStandardHelpOptions = true)
public final class VersionCommand implements Callable<Integer> {
  /** The kubelet version jkubelet reports to the API and matches in behaviour. */
  public static final String KUBELET_COMPAT = "v1.20.2";

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static String version() {
    String v = VersionCommand.class.getPackage().getImplementationVersion();
    return v == null ? "dev" : v;
  }

  @Override
  public Integer call() {
    spec.commandLine()
        .getOut()
        .println("jkubelet " + version() + " (kubelet " + KUBELET_COMPAT + " compatible)");
    return 0;
  }

  /** For {@code --version}. */
  public static final class Provider implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {
        "jkubelet " + version() + " (kubelet " + KUBELET_COMPAT + " compatible)"
      };
    }
  }
}
