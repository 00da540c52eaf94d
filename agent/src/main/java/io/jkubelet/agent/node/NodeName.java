package io.jkubelet.agent.node;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The node's name, as upstream's {@code nodeutil.GetHostname}: {@code --hostname-override} when it
 * is given, else the kernel's host name ({@code uname -n}, read from {@code
 * /proc/sys/kernel/hostname} as Go's {@code os.Hostname} does), trimmed and lower-cased. No name is
 * resolved: a host whose name is in no {@code /etc/hosts} and no DNS has a name all the same.
 */
public final class NodeName {
  /** Where Linux keeps the host name, as {@code uname -n} reports it. */
  public static final Path KERNEL_HOSTNAME = Path.of("/proc/sys/kernel/hostname");

  private NodeName() {}

  /**
   * The node's name on this host.
   *
   * @param override {@code --hostname-override}; null or "" for the kernel's host name
   * @throws IllegalArgumentException with upstream's message when there is no name
   */
  public static String of(String override) {
    return of(override, KERNEL_HOSTNAME);
  }

  static String of(String override, Path kernelHostname) {
    String name =
        override == null || override.isEmpty() ? kernelHostname(kernelHostname) : override;
    name = name.strip();
    if (name.isEmpty()) {
      throw new IllegalArgumentException("empty hostname is invalid");
    }
    return name.toLowerCase(Locale.ROOT);
  }

  /**
   * The kernel's host name as it is (Go's {@code os.Hostname}): for identities, such as a leader
   * election's, where upstream does not lower-case it.
   *
   * @throws IllegalArgumentException with upstream's message when it cannot be read
   */
  public static String kernelHostname() {
    return kernelHostname(KERNEL_HOSTNAME);
  }

  /** NOTE: read by lines: the file's size is reported as 0. */
  static String kernelHostname(Path file) {
    try {
      List<String> lines = Files.readAllLines(file);
      return lines.isEmpty() ? "" : lines.get(0).strip();
    } catch (IOException e) {
      throw new IllegalArgumentException("couldn't determine hostname: " + e, e);
    }
  }
}
