package io.jkubelet.agent.node;

import io.jkubelet.agent.util.StatFs;
import io.jkubelet.config.Quantities;
import io.jkubelet.config.Records;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What the host is, as the node reports it: the machine part of the Node's capacity and {@code
 * nodeInfo}. Upstream takes these from cAdvisor's {@code MachineInfo}; this reads the same files.
 *
 * <p>Read once at start-up: none of it changes while the process runs (the boot ID changes only
 * with a reboot, which restarts the agent).
 *
 * @param cpus logical CPUs: the {@code processor} entries of {@code /proc/cpuinfo}
 * @param memoryBytes {@code MemTotal} of {@code /proc/meminfo}
 * @param ephemeralStorageBytes the total size of the filesystem holding the root directory
 * @param hugePages each huge page size the kernel offers, as a quantity ({@code 2Mi}, {@code 1Gi}),
 *     to the bytes of it reserved ({@code nr_hugepages} times the size), from {@code
 *     /sys/kernel/mm/hugepages}
 * @param system the kernel, operating system and identities of the host
 */
public record NodeInfo(
    int cpus,
    long memoryBytes,
    long ephemeralStorageBytes,
    Map<String, Long> hugePages,
    SystemInfo system) {

  public NodeInfo {
    hugePages = Map.copyOf(hugePages);
    Objects.requireNonNull(system, "system");
  }

  /**
   * The host's part of the Node's {@code nodeInfo} (upstream's {@code NodeSystemInfo}).
   *
   * @param kernelVersion {@code /proc/sys/kernel/osrelease}
   * @param osImage {@code PRETTY_NAME} of {@code /etc/os-release}
   * @param operatingSystem always {@code linux}
   * @param architecture Go's name for it: {@code amd64}, {@code arm64}, ...
   * @param machineId {@code /etc/machine-id}, or "" when missing
   * @param systemUuid {@code /sys/class/dmi/id/product_uuid}, or the machine ID when unreadable
   * @param bootId {@code /proc/sys/kernel/random/boot_id}
   */
  public record SystemInfo(
      String kernelVersion,
      String osImage,
      String operatingSystem,
      String architecture,
      String machineId,
      String systemUuid,
      String bootId) {
    public SystemInfo {
      Records.requireNonNull(
          SystemInfo.class,
          kernelVersion,
          osImage,
          operatingSystem,
          architecture,
          machineId,
          systemUuid,
          bootId);
    }
  }

  /** Where the host's files are; tests point these at fixtures. */
  public record HostPaths(Path proc, Path etc, Path sys) {
    public static final HostPaths HOST =
        new HostPaths(Path.of("/proc"), Path.of("/etc"), Path.of("/sys"));
  }

  /** Reads this host, with the ephemeral storage of the filesystem that holds {@code rootDir}. */
  public static NodeInfo read(Path rootDir) {
    return read(HostPaths.HOST, rootDir, System.getProperty("os.arch"));
  }

  /**
   * Reads the host under {@code paths}.
   *
   * @throws IllegalStateException when a file every Linux host has ({@code meminfo}, {@code
   *     osrelease}, {@code boot_id}) cannot be read, naming the file
   */
  public static NodeInfo read(HostPaths paths, Path rootDir, String osArch) {
    Path proc = paths.proc();
    String machineId = readOptional(paths.etc().resolve("machine-id")).orElse("");
    return new NodeInfo(
        cpus(proc.resolve("cpuinfo")),
        memTotal(proc.resolve("meminfo")),
        filesystemSize(rootDir),
        hugePages(paths.sys().resolve("kernel/mm/hugepages")),
        new NodeInfo.SystemInfo(
            readRequired(proc.resolve("sys/kernel/osrelease")),
            prettyName(paths.etc().resolve("os-release")),
            "linux",
            architecture(osArch),
            machineId,
            readOptional(paths.sys().resolve("class/dmi/id/product_uuid")).orElse(machineId),
            readRequired(proc.resolve("sys/kernel/random/boot_id"))));
  }

  /** {@code hugepages-2048kB/nr_hugepages} and its siblings: size quantity to bytes reserved. */
  static Map<String, Long> hugePages(Path dir) {
    Map<String, Long> out = new TreeMap<>();
    try (DirectoryStream<Path> sizes = Files.newDirectoryStream(dir, "hugepages-*kB")) {
      for (Path size : sizes) {
        String name = size.getFileName().toString();
        long kb = Long.parseLong(name.substring("hugepages-".length(), name.length() - 2));
        long pages =
            readOptional(size.resolve("nr_hugepages"))
                .map(String::strip)
                .map(Long::parseLong)
                .orElse(0L);
        out.put(Quantities.binarySi(kb * 1024), pages * kb * 1024);
      }
    } catch (IOException | RuntimeException e) {
      return Map.of(); // no huge pages, or a kernel that does not say: report none
    }
    return out;
  }

  /** Go's GOARCH for a Java {@code os.arch}. */
  static String architecture(String osArch) {
    String a = osArch == null ? "" : osArch.toLowerCase(Locale.ROOT);
    return switch (a) {
      case "amd64", "x86_64" -> "amd64";
      case "aarch64", "arm64" -> "arm64";
      case "x86", "i386", "i486", "i586", "i686" -> "386";
      case "arm", "arm32" -> "arm";
      default -> a;
    };
  }

  private static int cpus(Path cpuinfo) {
    Optional<String> text = readOptional(cpuinfo);
    long n =
        text.map(t -> t.lines().filter(l -> l.startsWith("processor") && l.contains(":")).count())
            .orElse(0L);
    return n > 0 ? (int) n : Runtime.getRuntime().availableProcessors();
  }

  private static long memTotal(Path meminfo) {
    for (String line : readRequired(meminfo).lines().toList()) {
      if (line.startsWith("MemTotal:")) {
        List<String> fields = List.of(line.substring("MemTotal:".length()).trim().split("\\s+"));
        try {
          long value = Long.parseLong(fields.get(0));
          boolean kb = fields.size() > 1 && fields.get(1).equalsIgnoreCase("kB");
          return kb ? value * 1024 : value;
        } catch (NumberFormatException e) {
          throw new IllegalStateException("NodeInfo: cannot parse \"" + line + "\" in " + meminfo);
        }
      }
    }
    throw new IllegalStateException("NodeInfo: no MemTotal in " + meminfo);
  }

  private static String prettyName(Path osRelease) {
    return readOptional(osRelease).stream()
        .flatMap(String::lines)
        .filter(l -> l.startsWith("PRETTY_NAME="))
        .map(l -> unquote(l.substring("PRETTY_NAME=".length()).trim()))
        .filter(s -> !s.isEmpty())
        .findFirst()
        .orElse("Linux");
  }

  private static String unquote(String s) {
    if (s.length() >= 2
        && (s.startsWith("\"") && s.endsWith("\"") || s.startsWith("'") && s.endsWith("'"))) {
      return s.substring(1, s.length() - 1);
    }
    return s;
  }

  /** The total size of the filesystem that holds {@code dir}, or of its nearest existing parent. */
  static long filesystemSize(Path dir) {
    try {
      return StatFs.ofExisting(dir).capacityBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("NodeInfo: cannot read the filesystem of " + dir, e);
    }
  }

  private static String readRequired(Path file) {
    try {
      return Files.readString(file).trim();
    } catch (IOException e) {
      throw new IllegalStateException("NodeInfo: cannot read " + file + ": " + e, e);
    }
  }

  private static Optional<String> readOptional(Path file) {
    try {
      String s = Files.readString(file).trim();
      return s.isEmpty() ? Optional.empty() : Optional.of(s);
    } catch (IOException e) {
      // missing, or e.g. product_uuid, which only root may read
      return Optional.empty();
    }
  }
}
