package io.jkubelet.agent.systemd;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A systemd of transient units in memory that follows {@link Systemd}'s contract ({@link
 * SystemdContract}): units started with their properties, {@code UnitExists} for a loaded one,
 * {@code NoSuchUnit} to set properties on a unit not loaded, stop forgetting the unit. It records
 * every call in {@link #calls()}; {@link #fail} makes the next call fail.
 *
 * <p>With a cgroup v2 root it also does what systemd does to the files: a started slice gets its
 * directory (the slice name expanded, {@code a-b.slice} under {@code a.slice}) and, each time the
 * unit is realized, its properties written as {@code memory.max}, {@code cpu.weight}, {@code
 * cpu.max} and {@code pids.max}. {@link #realizeAll()} realizes every slice as systemd does when a
 * container scope starts in one or on {@code daemon-reload}: a slice directory without a unit of
 * its own properties gets {@code max} in those files, which is what happens to limits written only
 * into the files.
 *
 * <p>Thread-safe: every method is synchronized.
 */
public final class FakeSystemd implements Systemd {
  private final Path cgroupRoot;
  private final int version;
  private final Map<String, Map<String, UnitProperty.Value>> units;
  private final List<String> calls;
  private SystemdException nextError;
  private boolean closed;

  /** Units in memory only. */
  public FakeSystemd() {
    this(null, 252);
  }

  /**
   * @param cgroupRoot a cgroup v2 tree to realize slices in, or null
   * @param version what {@link #version()} says
   */
  public FakeSystemd(Path cgroupRoot, int version) {
    this(cgroupRoot, version, new LinkedHashMap<>(), new ArrayList<>());
  }

  private FakeSystemd(
      Path cgroupRoot,
      int version,
      Map<String, Map<String, UnitProperty.Value>> units,
      List<String> calls) {
    this.cgroupRoot = cgroupRoot;
    this.version = version;
    this.units = units;
    this.calls = calls;
  }

  /**
   * A new connection to the same systemd: its units and recorded calls are this one's (use the two
   * from one thread only: each locks itself alone).
   */
  public synchronized FakeSystemd reconnect() {
    return new FakeSystemd(cgroupRoot, version, units, calls);
  }

  /** Makes the next call throw {@code error}. */
  public synchronized void fail(SystemdException error) {
    this.nextError = error;
  }

  /** The calls so far, e.g. {@code "StartTransientUnit kubepods.slice"}. */
  public synchronized List<String> calls() {
    return List.copyOf(calls);
  }

  /** The loaded unit's properties, as last set. */
  public synchronized Optional<Map<String, UnitProperty.Value>> unit(String name) {
    Map<String, UnitProperty.Value> u = units.get(name);
    return u == null ? Optional.empty() : Optional.of(Map.copyOf(u));
  }

  /** Whether {@link #close()} was called. */
  public synchronized boolean closed() {
    return closed;
  }

  private void call(String what) {
    if (closed) {
      throw new SystemdException(SystemdException.FAILED, "connection closed");
    }
    calls.add(what);
    SystemdException e = nextError;
    nextError = null;
    if (e != null) {
      throw e;
    }
  }

  @Override
  public synchronized void startTransientUnit(String unit, List<UnitProperty> properties) {
    call("StartTransientUnit " + unit);
    if (units.containsKey(unit)) {
      throw new SystemdException(
          SystemdException.UNIT_EXISTS,
          "Unit " + unit + " was already loaded or has a fragment file.");
    }
    Map<String, UnitProperty.Value> props = new LinkedHashMap<>();
    properties.forEach(p -> props.put(p.name(), p.value()));
    units.put(unit, props);
    realize(unit);
  }

  @Override
  public synchronized void setUnitProperties(String unit, List<UnitProperty> properties) {
    call("SetUnitProperties " + unit);
    Map<String, UnitProperty.Value> props = units.get(unit);
    if (props == null) {
      throw new SystemdException(SystemdException.NO_SUCH_UNIT, "Unit " + unit + " not found.");
    }
    properties.forEach(p -> props.put(p.name(), p.value()));
    realize(unit);
  }

  @Override
  public synchronized void stopUnit(String unit) {
    call("StopUnit " + unit);
    if (units.remove(unit) != null && cgroupRoot != null) {
      try {
        Files.deleteIfExists(dir(unit).resolve("cgroup.procs"));
        for (String f : List.of("memory.max", "cpu.weight", "cpu.max", "pids.max")) {
          Files.deleteIfExists(dir(unit).resolve(f));
        }
        Files.deleteIfExists(dir(unit));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  @Override
  public synchronized int version() {
    call("Version");
    return version;
  }

  @Override
  public synchronized void close() {
    closed = true;
  }

  /** systemd realizing every slice under the root, as on a daemon reload. */
  public synchronized void realizeAll() {
    if (cgroupRoot == null) {
      return;
    }
    try (var walk = Files.walk(cgroupRoot)) {
      for (Path dir : walk.filter(Files::isDirectory).toList()) {
        String name = dir.getFileName().toString();
        if (name.endsWith(".slice")) {
          if (units.containsKey(name)) {
            realize(name);
          } else {
            write(dir, "memory.max", "max");
            write(dir, "cpu.max", "max 100000");
            write(dir, "pids.max", "max");
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The slice's directory: {@code a-b.slice} is {@code a.slice/a-b.slice}. */
  private Path dir(String unit) {
    String base = unit.substring(0, unit.length() - ".slice".length());
    Path dir = cgroupRoot;
    StringBuilder prefix = new StringBuilder();
    for (String part : base.split("-")) {
      dir = dir.resolve(prefix + part + ".slice");
      prefix.append(part).append('-');
    }
    return dir;
  }

  private void realize(String unit) {
    if (cgroupRoot == null || !unit.endsWith(".slice")) {
      return;
    }
    Path dir = dir(unit);
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Map<String, UnitProperty.Value> p = units.get(unit);
    write(dir, "memory.max", max(p.get("MemoryMax")));
    write(dir, "pids.max", max(p.get("TasksMax")));
    write(dir, "cpu.weight", p.containsKey("CPUWeight") ? p.get("CPUWeight").toString() : "100");
    long period = p.get("CPUQuotaPeriodUSec") instanceof UnitProperty.U64 u ? u.value() : 100_000;
    String quota =
        p.get("CPUQuotaPerSecUSec") instanceof UnitProperty.U64 u
                && u.value() != UnitProperty.INFINITY
            ? Long.toString(u.value() * period / 1_000_000)
            : "max";
    write(dir, "cpu.max", quota + " " + period);
  }

  private static String max(UnitProperty.Value v) {
    return v instanceof UnitProperty.U64 u && u.value() != UnitProperty.INFINITY
        ? Long.toString(u.value())
        : "max";
  }

  private static void write(Path dir, String file, String value) {
    try {
      Files.writeString(dir.resolve(file), value + "\n");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
