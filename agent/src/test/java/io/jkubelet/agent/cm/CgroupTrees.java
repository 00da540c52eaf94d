package io.jkubelet.agent.cm;

import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Temporary directories laid out like a cgroup file system, and an {@link CgroupFiles.Rmdir} that
 * behaves as the kernel's: a cgroup with processes or child cgroups is busy; otherwise its control
 * files go with it.
 */
final class CgroupTrees {
  private CgroupTrees() {}

  /**
   * cgroup v1 as this kind of host mounts it: {@code cpu,cpuacct} with {@code cpu} and {@code
   * cpuacct} links to it, separate cpuset, memory, pids, devices, freezer, blkio and systemd
   * hierarchies, and systemd's empty unified one.
   */
  static Path v1(Path root) throws IOException {
    Path cpu = Files.createDirectories(root.resolve("cpu,cpuacct"));
    Files.createSymbolicLink(root.resolve("cpu"), cpu.getFileName());
    Files.createSymbolicLink(root.resolve("cpuacct"), cpu.getFileName());
    for (String h :
        List.of("memory", "pids", "devices", "freezer", "blkio", "systemd", "unified")) {
      Files.createDirectories(root.resolve(h));
    }
    Path cpuset = Files.createDirectories(root.resolve("cpuset"));
    Files.writeString(cpuset.resolve("cpuset.cpus"), "0-1\n");
    Files.writeString(cpuset.resolve("cpuset.mems"), "0\n");
    Files.writeString(cpu.resolve("cpu.shares"), "1024\n");
    return root;
  }

  /** cgroup v2's unified mount, offering the usual controllers. */
  static Path v2(Path root) throws IOException {
    Files.createDirectories(root);
    Files.writeString(
        root.resolve("cgroup.controllers"), "cpuset cpu io memory hugetlb pids rdma\n");
    Files.writeString(root.resolve("cgroup.subtree_control"), "");
    return root;
  }

  /** The kernel's rmdir on a cgroup directory. */
  static final CgroupFiles.Rmdir RMDIR =
      dir -> {
        try (Stream<Path> s = Files.list(dir)) {
          List<Path> entries = s.toList();
          if (entries.stream().anyMatch(Files::isDirectory)) {
            throw new DirectoryNotEmptyException(dir.toString());
          }
          Path procs = dir.resolve("cgroup.procs");
          if (Files.exists(procs) && !Files.readString(procs).isBlank()) {
            throw new FileSystemException(dir.toString(), null, "Device or resource busy");
          }
          for (Path e : entries) {
            Files.delete(e);
          }
        }
        Files.delete(dir);
      };

  static String read(Path file) throws IOException {
    return Files.readString(file).strip();
  }
}
