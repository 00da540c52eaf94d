package io.jkubelet.agent.cm;

import io.jkubelet.agent.util.Errors;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * File operations on a cgroup file system, shared by {@link CgroupV1} and {@link CgroupV2}.
 *
 * <p>NOTE: a cgroup directory is removed with {@code rmdir(2)} while its control files are still
 * listed: the kernel allows that, and refuses (EBUSY) while processes or child cgroups remain. Unit
 * tests, which lay out an ordinary directory tree, pass an {@link Rmdir} that imitates it.
 */
final class CgroupFiles {
  static final String PROCS = "cgroup.procs";

  /** {@code rmdir(2)} of one cgroup directory. */
  @FunctionalInterface
  interface Rmdir {
    void rmdir(Path dir) throws IOException;

    /** The real one: on a cgroup file system, deleting the directory is {@code rmdir}. */
    Rmdir KERNEL = Files::delete;
  }

  private CgroupFiles() {}

  /** Writes one control file, as runc's {@code WriteFile}: create, truncate, write. */
  static void write(String cgroup, Path dir, String file, String value) {
    try {
      Files.writeString(dir.resolve(file), value, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw Errors.withCause(
          new CgroupException(
              cgroup, "cannot write " + value + " to " + dir.resolve(file) + ": " + describe(e)),
          e);
    }
  }

  /** A control file's trimmed content; empty when it is missing. */
  static Optional<String> read(Path file) {
    try {
      return Optional.of(Files.readString(file, StandardCharsets.US_ASCII).strip());
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw Errors.withCause(
          new CgroupException(file.toString(), "cannot read: " + describe(e)), e);
    }
  }

  /** Makes a directory; an existing one is fine. */
  static void mkdir(String cgroup, Path dir) {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw Errors.withCause(
          new CgroupException(cgroup, "cannot create " + dir + ": " + describe(e)), e);
    }
  }

  /**
   * The processes of the cgroup {@code cgroup}, whose directories (one per hierarchy) are {@code
   * dirs}: sorted, without repeats, with those of the cgroups below it.
   */
  static List<Integer> pids(String cgroup, Collection<Path> dirs) {
    TreeSet<Integer> pids = new TreeSet<>();
    for (Path dir : dirs) {
      try {
        pids(dir, pids);
      } catch (IOException e) {
        throw Errors.withCause(
            new CgroupException(cgroup, "cannot read its processes: " + describe(e)), e);
      }
    }
    return List.copyOf(pids);
  }

  /** The pids in {@code dir}'s {@code cgroup.procs} and in every cgroup below it. */
  private static void pids(Path dir, TreeSet<Integer> into) throws IOException {
    if (!Files.isDirectory(dir)) {
      return;
    }
    Optional<String> procs = read(dir.resolve(PROCS));
    if (procs.isPresent()) {
      for (String line : procs.get().split("\n")) {
        if (!line.isBlank()) {
          into.add(Integer.parseInt(line.strip()));
        }
      }
    }
    for (Path child : childDirs(dir)) {
      pids(child, into);
    }
  }

  /** The directories directly in {@code dir}, sorted; none when it does not exist. */
  static List<Path> childDirs(Path dir) throws IOException {
    List<Path> out = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return out;
    }
    try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, Files::isDirectory)) {
      s.forEach(out::add);
    } catch (NoSuchFileException e) {
      return out;
    }
    out.sort(null);
    return out;
  }

  /** Removes {@code dir}'s child cgroups, deepest first, then {@code dir}. */
  static void removeTree(Path dir, Rmdir rmdir) throws IOException {
    for (Path child : childDirs(dir)) {
      removeTree(child, rmdir);
    }
    try {
      rmdir.rmdir(dir);
    } catch (NoSuchFileException e) {
      // gone already
    }
  }

  static String describe(IOException e) {
    String reason = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    if (e instanceof java.nio.file.FileSystemException f && f.getReason() != null) {
      reason = f.getReason();
    }
    return reason;
  }
}
