package io.jkubelet.agent.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jkubelet.agent.node.NodeInfo.HostPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class NodeInfoTest {
  @TempDir Path dir;
  private HostPaths paths;

  @BeforeEach
  void fixtures() throws IOException {
    paths = new HostPaths(dir.resolve("proc"), dir.resolve("etc"), dir.resolve("sys"));
    write("proc/cpuinfo", cpuinfo(3));
    write(
        "proc/meminfo",
        "MemTotal:       16374784 kB\nMemFree:         1234567 kB\nMemAvailable:   9000000 kB\n");
    write("proc/sys/kernel/osrelease", "6.1.0-18-amd64\n");
    write("proc/sys/kernel/random/boot_id", "0f6a3f5e-1b9e-4bb4-9d3b-1d5e9e0a1c2b\n");
    write(
        "etc/os-release",
        "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\nID=debian\n");
    write("etc/machine-id", "3c1e9d0c5f0a4e7b9d2f6a8b1c3d5e7f\n");
    write("sys/class/dmi/id/product_uuid", "ec2d4f6a-0000-1111-2222-333344445555\n");
  }

  private void write(String rel, String content) throws IOException {
    Path p = dir.resolve(rel);
    Files.createDirectories(p.getParent());
    Files.writeString(p, content);
  }

  private static String cpuinfo(int n) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < n; i++) {
      b.append("processor\t: ").append(i).append("\nvendor_id\t: GenuineIntel\n\n");
    }
    return b.toString();
  }

  @Test
  void readsTheHostFromItsFiles() {
    NodeInfo info = NodeInfo.read(paths, dir, "amd64");

    assertThat(info.cpus()).isEqualTo(3);
    assertThat(info.memoryBytes()).isEqualTo(16374784L * 1024);
    assertThat(info.system().kernelVersion()).isEqualTo("6.1.0-18-amd64");
    assertThat(info.system().osImage()).isEqualTo("Debian GNU/Linux 12 (bookworm)");
    assertThat(info.system().operatingSystem()).isEqualTo("linux");
    assertThat(info.system().architecture()).isEqualTo("amd64");
    assertThat(info.system().machineId()).isEqualTo("3c1e9d0c5f0a4e7b9d2f6a8b1c3d5e7f");
    assertThat(info.system().systemUuid()).isEqualTo("ec2d4f6a-0000-1111-2222-333344445555");
    assertThat(info.system().bootId()).isEqualTo("0f6a3f5e-1b9e-4bb4-9d3b-1d5e9e0a1c2b");
  }

  @Test
  void hugePagesAreEachSizeTheKernelOffersWithTheBytesReserved() throws IOException {
    write("sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", "3\n");
    write("sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages", "0\n");

    NodeInfo info = NodeInfo.read(paths, dir, "amd64");

    assertThat(info.hugePages())
        .containsOnly(Map.entry("2Mi", 3L * 2 * 1024 * 1024), Map.entry("1Gi", 0L));
  }

  @Test
  void aKernelWithoutHugePagesReportsNone() {
    assertThat(NodeInfo.read(paths, dir, "amd64").hugePages()).isEmpty();
  }

  @Test
  void ephemeralStorageIsTheSizeOfTheFilesystemHoldingTheRootDir() throws IOException {
    long expected = Files.getFileStore(dir).getTotalSpace();
    assertThat(NodeInfo.read(paths, dir, "amd64").ephemeralStorageBytes())
        .isEqualTo(expected)
        .isPositive();
    // A root dir that does not exist yet is measured on its nearest existing parent.
    assertThat(NodeInfo.read(paths, dir.resolve("not/yet/there"), "amd64").ephemeralStorageBytes())
        .isEqualTo(expected);
  }

  @Test
  void systemUuidFallsBackToTheMachineIdAndOptionalFilesMayBeMissing() throws IOException {
    Files.delete(dir.resolve("sys/class/dmi/id/product_uuid"));
    assertThat(NodeInfo.read(paths, dir, "amd64").system().systemUuid())
        .isEqualTo("3c1e9d0c5f0a4e7b9d2f6a8b1c3d5e7f");

    Files.delete(dir.resolve("etc/machine-id"));
    Files.delete(dir.resolve("etc/os-release"));
    NodeInfo info = NodeInfo.read(paths, dir, "amd64");
    assertThat(info.system().machineId()).isEmpty();
    assertThat(info.system().systemUuid()).isEmpty();
    assertThat(info.system().osImage()).isEqualTo("Linux");
  }

  @Test
  void unquotedPrettyNameIsReadAsIs() throws IOException {
    write("etc/os-release", "NAME=Alpine\nPRETTY_NAME=Alpine Linux v3.19\n");
    assertThat(NodeInfo.read(paths, dir, "amd64").system().osImage())
        .isEqualTo("Alpine Linux v3.19");
  }

  @Test
  void cpuCountFallsBackToTheJvmWithoutCpuinfo() throws IOException {
    Files.delete(dir.resolve("proc/cpuinfo"));
    assertThat(NodeInfo.read(paths, dir, "amd64").cpus())
        .isEqualTo(Runtime.getRuntime().availableProcessors());
  }

  @Test
  void aMissingRequiredFileIsNamed() throws IOException {
    Files.delete(dir.resolve("proc/meminfo"));
    assertThatThrownBy(() -> NodeInfo.read(paths, dir, "amd64"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("meminfo");
  }

  @Test
  void meminfoWithoutMemTotalIsAnError() throws IOException {
    write("proc/meminfo", "MemFree: 1 kB\n");
    assertThatThrownBy(() -> NodeInfo.read(paths, dir, "amd64"))
        .hasMessageContaining("no MemTotal");
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({"amd64,amd64", "x86_64,amd64", "aarch64,arm64", "arm64,arm64", "ppc64le,ppc64le"})
  void architectureUsesGoNames(String osArch, String goArch) {
    assertThat(NodeInfo.architecture(osArch)).isEqualTo(goArch);
  }

  @Test
  void readsThisHost() {
    NodeInfo info = NodeInfo.read(dir);
    assertThat(info.cpus()).isPositive();
    assertThat(info.memoryBytes()).isPositive();
    assertThat(info.system().kernelVersion()).isNotEmpty();
    assertThat(info.system().bootId()).isNotEmpty();
    assertThat(info.system().architecture()).isIn("amd64", "arm64");
  }
}
