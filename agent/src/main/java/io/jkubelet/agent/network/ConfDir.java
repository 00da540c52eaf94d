package io.jkubelet.agent.network;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The CNI configuration directory, read as dockershim's {@code getDefaultCNINetwork}: the {@code
 * .conf}, {@code .conflist} and {@code .json} files by name, and the first that parses, whose
 * plugins are all on the binary path and all support its {@code cniVersion}, is the network. Unlike
 * upstream, every file passed over is kept with its reason, so that the node's condition and the
 * log can name it.
 */
final class ConfDir {
  private ConfDir() {}

  /** A file passed over, and why. */
  record Rejected(String file, String reason) {
    @Override
    public String toString() {
      return file + ": " + reason;
    }
  }

  /**
   * What a scan found.
   *
   * @param network the chosen network, or null when none is valid
   * @param rejected the files passed over before it (all of them when none is valid)
   */
  record Choice(NetworkList network, List<Rejected> rejected) {
    Choice {
      rejected = List.copyOf(rejected);
    }
  }

  static Choice scan(Path dir, CniExec exec) {
    List<Path> files;
    try (Stream<Path> s = Files.list(dir)) {
      files =
          s.filter(
                  p -> {
                    String n = p.getFileName().toString();
                    return n.endsWith(".conf") || n.endsWith(".conflist") || n.endsWith(".json");
                  })
              .sorted()
              .toList();
    } catch (NoSuchFileException e) {
      return new Choice(null, List.of());
    } catch (IOException e) {
      return new Choice(null, List.of(new Rejected(dir.toString(), "cannot list: " + e)));
    }
    List<Rejected> rejected = new ArrayList<>();
    for (Path f : files) {
      String name = f.toString();
      try {
        NetworkList list = NetworkList.parse(f.getFileName().toString(), Files.readAllBytes(f));
        validate(list, exec);
        return new Choice(
            new NetworkList(
                name,
                list.name(),
                list.cniVersion(),
                list.plugins(),
                list.capabilities(),
                list.bytes()),
            rejected);
      } catch (IOException e) {
        rejected.add(new Rejected(name, "cannot read: " + e.getMessage()));
      } catch (IllegalArgumentException | CniException e) {
        rejected.add(new Rejected(name, e.getMessage()));
      }
    }
    return new Choice(null, rejected);
  }

  /** As libcni's {@code ValidateNetworkList}: every plugin found, every one of this version. */
  static void validate(NetworkList list, CniExec exec) throws CniException {
    String version = list.cniVersion().isEmpty() ? "0.1.0" : list.cniVersion();
    for (String type : list.types()) {
      if (!exec.supportedVersions(type).contains(version)) {
        throw new CniException(
            "plugin " + type + " does not support config version \"" + version + "\"");
      }
    }
  }
}
