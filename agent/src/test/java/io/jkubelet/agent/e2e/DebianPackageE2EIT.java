package io.jkubelet.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Debian package as an operator installs it: {@code deploy/scripts/package-deb.sh} builds it,
 * {@code dpkg -i} installs it on this machine, and then {@code kubelet --version} answers as
 * kubeadm's preflight check expects and the unit with kubeadm's drop-in passes {@code
 * systemd-analyze verify}. The package is removed afterwards. Needs root, as dpkg does.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class DebianPackageE2EIT {
  @TempDir Path out;

  private record Run(int code, String output) {}

  private static Run run(List<String> cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    byte[] bytes = p.getInputStream().readAllBytes();
    assertThat(p.waitFor(240, TimeUnit.SECONDS)).as("%s exits", cmd).isTrue();
    return new Run(p.exitValue(), new String(bytes, StandardCharsets.UTF_8).strip());
  }

  @Test
  void theInstalledPackageIsTheKubeletKubeadmStarts() throws Exception {
    assumeTrue(
        !run(List.of("dpkg-query", "-W", "-f=${Status}", "jkubelet"))
            .output()
            .equals("install ok installed"),
        "jkubelet is installed from a package already; this test would remove it");
    Path script = Path.of("..", "deploy", "scripts", "package-deb.sh").toAbsolutePath();
    Run built = run(List.of(script.toString(), out.toString()));
    assertThat(built.code()).as(built.output()).isZero();
    String deb = built.output().lines().reduce((a, b) -> b).orElseThrow();
    assertThat(deb).endsWith("_all.deb");

    Run installed = run(List.of("dpkg", "-i", deb));
    try {
      assertThat(installed.code()).as(installed.output()).isZero();
      assertThat(run(List.of("/usr/bin/kubelet", "--version")))
          .isEqualTo(new Run(0, "Kubernetes v1.20.2"));
      assertThat(Files.readString(Path.of("/etc/systemd/system/kubelet.service.d/10-kubeadm.conf")))
          .contains("--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf");
      // With the drop-in: no warning, no error.
      assertThat(run(List.of("systemd-analyze", "verify", "kubelet.service")))
          .isEqualTo(new Run(0, ""));
    } finally {
      Run removed = run(List.of("dpkg", "--purge", "jkubelet"));
      assertThat(removed.code()).as(removed.output()).isZero();
    }
    assertThat(Path.of("/usr/bin/kubelet")).doesNotExist();
  }
}
