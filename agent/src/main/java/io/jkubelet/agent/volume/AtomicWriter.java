package io.jkubelet.agent.volume;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotLinkException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Projects a set of files into a directory so that a reader never sees a half-written set, as
 * upstream's {@code pkg/volume/util/atomic_writer.go}:
 *
 * <ol>
 *   <li>the payload's paths are validated (relative, no {@code ..} element, not starting with
 *       {@code ..});
 *   <li>when the timestamped directory that {@code ..data} points at already holds the same bytes
 *       and no path went away, nothing is written;
 *   <li>else a new {@code ..<yyyy_MM_dd_HH_mm_ss>.<n>} directory gets the files with their modes;
 *   <li>the user-visible links ({@code key -> ..data/key}, for the first path element) are made;
 *   <li>a {@code ..data_tmp} link to the new directory is renamed over {@code ..data}: one
 *       rename(2), so readers see the old set or the new one;
 *   <li>user-visible links of paths that went away, and the old directory, are removed.
 * </ol>
 *
 * <p>Not thread-safe: one writer per volume directory at a time (the pod's worker).
 *
 * @param target the volume directory, which must exist
 * @param context who writes, for log lines: {@code pod <ns>/<name> volume <volume>}
 */
record AtomicWriter(Path target, Clock clock, String context) {
  private static final Logger log = LoggerFactory.getLogger(AtomicWriter.class);
  static final String DATA_DIR = "..data";
  static final String NEW_DATA_DIR = "..data_tmp";
  private static final int MAX_PATH = 4096;
  private static final int MAX_FILE_NAME = 255;
  private static final DateTimeFormatter TS =
      DateTimeFormatter.ofPattern("'..'yyyy_MM_dd_HH_mm_ss'.'").withZone(ZoneOffset.UTC);

  /** A payload path that the writer refuses; upstream's message. */
  static final class InvalidPath extends Exception {
    InvalidPath(String message) {
      super(message);
    }
  }

  /**
   * Writes the payload.
   *
   * @return whether anything changed on disk
   */
  boolean write(Map<String, FileProjection> payload) throws InvalidPath, IOException {
    Map<String, FileProjection> clean = validate(payload);
    Path dataDir = target.resolve(DATA_DIR);
    String oldTs = readLink(dataDir);
    Set<String> toRemove = Set.of();
    if (oldTs != null) {
      Path oldTsPath = target.resolve(oldTs);
      toRemove = pathsToRemove(clean, oldTsPath);
      if (!shouldWrite(clean, oldTsPath) && toRemove.isEmpty()) {
        log.trace("{}: no update required for target directory {}", context, target);
        return false;
      }
    }
    Path tsDir = Files.createTempDirectory(target, TS.format(clock.instant()));
    Files.setAttribute(tsDir, "unix:mode", 0755);
    try {
      writePayload(clean, tsDir);
      createUserVisibleFiles(clean);
      Path newData = target.resolve(NEW_DATA_DIR);
      Files.deleteIfExists(newData);
      Files.createSymbolicLink(newData, tsDir.getFileName());
      Files.move(newData, dataDir, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      Files.deleteIfExists(target.resolve(NEW_DATA_DIR));
      deleteTree(tsDir);
      throw e;
    }
    for (String p : toRemove) {
      if (!p.contains("/")) { // only links in the volume's root are user-visible
        Files.deleteIfExists(target.resolve(p));
      }
    }
    if (oldTs != null) {
      deleteTree(target.resolve(oldTs));
    }
    log.debug("{}: wrote {} files into {}", context, clean.size(), target);
    return true;
  }

  /** Validates every path; returns the payload with cleaned paths. */
  static Map<String, FileProjection> validate(Map<String, FileProjection> payload)
      throws InvalidPath {
    Map<String, FileProjection> clean = new HashMap<>();
    for (var e : payload.entrySet()) {
      validatePath(e.getKey());
      clean.put(Path.of(e.getKey()).normalize().toString(), e.getValue());
    }
    return clean;
  }

  /** Upstream's {@code validatePath}, with its messages. */
  static void validatePath(String path) throws InvalidPath {
    if (path.isEmpty()) {
      throw new InvalidPath("invalid path: must not be empty: \"\"");
    }
    if (path.startsWith("/")) {
      throw new InvalidPath("invalid path: must be relative path: " + path);
    }
    if (path.length() > MAX_PATH) {
      throw new InvalidPath("invalid path: must be less than or equal to 4096 characters");
    }
    String[] items = path.split("/", -1);
    for (String item : items) {
      if (item.equals("..")) {
        throw new InvalidPath("invalid path: must not contain '..': " + path);
      }
      if (item.length() > MAX_FILE_NAME) {
        throw new InvalidPath(
            "invalid path: filenames must be less than or equal to 255 characters");
      }
    }
    if (items[0].startsWith("..") && items[0].length() > 2) {
      throw new InvalidPath("invalid path: must not start with '..': " + path);
    }
  }

  private static String readLink(Path link) throws IOException {
    try {
      return Files.readSymbolicLink(link).toString();
    } catch (NoSuchFileException | NotLinkException e) {
      return null;
    }
  }

  private static boolean shouldWrite(Map<String, FileProjection> payload, Path oldTs)
      throws IOException {
    for (var e : payload.entrySet()) {
      Path p = oldTs.resolve(e.getKey());
      if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
        return true;
      }
      if (!Arrays.equals(Files.readAllBytes(p), e.getValue().data())) {
        return true;
      }
    }
    return false;
  }

  /** The relative paths in the old directory that the new payload does not keep. */
  private static Set<String> pathsToRemove(Map<String, FileProjection> payload, Path oldTs)
      throws IOException {
    Set<String> paths = new TreeSet<>();
    if (!Files.isDirectory(oldTs)) {
      return paths;
    }
    try (Stream<Path> walk = Files.walk(oldTs)) {
      walk.filter(p -> !p.equals(oldTs)).forEach(p -> paths.add(oldTs.relativize(p).toString()));
    }
    Set<String> newPaths = new TreeSet<>();
    for (String file : payload.keySet()) {
      for (Path p = Path.of(file); p != null; p = p.getParent()) {
        newPaths.add(p.toString());
      }
    }
    paths.removeAll(newPaths);
    return paths;
  }

  private static void writePayload(Map<String, FileProjection> payload, Path dir)
      throws IOException {
    for (var e : payload.entrySet()) {
      Path full = dir.resolve(e.getKey());
      Files.createDirectories(full.getParent());
      Files.write(full, e.getValue().data());
      // NOTE: the mode is set after the write, so the umask does not narrow it.
      Files.setAttribute(full, "unix:mode", e.getValue().mode() & 07777);
    }
  }

  private void createUserVisibleFiles(Map<String, FileProjection> payload) throws IOException {
    for (String path : payload.keySet()) {
      int slash = path.indexOf('/');
      String link = slash < 0 ? path : path.substring(0, slash);
      Path visible = target.resolve(link);
      if (!Files.exists(visible, LinkOption.NOFOLLOW_LINKS)) {
        try {
          Files.createSymbolicLink(visible, Path.of(DATA_DIR, link));
        } catch (FileAlreadyExistsException e) {
          // another path with the same first element made it
        }
      }
    }
  }

  /** Removes a directory tree without following links. */
  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
