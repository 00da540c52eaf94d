package io.jkubelet.agent.cli;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.stream.Stream;

/**
 * Upstream's command line, for jkubelet started as {@code kubelet} (the launcher's link {@code
 * bin/kubelet}, which kubeadm's systemd unit runs): the flags with no subcommand, which is {@code
 * jkubelet run}; and {@code --version}, which prints what upstream prints, {@code Kubernetes
 * v1.20.2}, the line kubeadm's {@code KubeletVersion} preflight check parses.
 */
final class KubeletCommandLine {
  private KubeletCommandLine() {}

  /** Runs upstream's command line {@code args} and returns the exit code. */
  static int execute(PrintStream out, String... args) {
    for (String a : args) {
      if (a.equals("--version") || a.equals("--version=true") || a.equals("--version=raw")) {
        out.println("Kubernetes " + VersionCommand.KUBELET_COMPAT);
        return 0;
      }
    }
    String[] run =
        Stream.concat(
                Stream.of("run"), Arrays.stream(args).filter(a -> !a.equals("--version=false")))
            .toArray(String[]::new);
    return Main.execute(run);
  }
}
