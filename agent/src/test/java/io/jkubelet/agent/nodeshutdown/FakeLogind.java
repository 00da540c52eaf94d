package io.jkubelet.agent.nodeshutdown;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A {@link Logind} in memory that follows {@code LogindContract}: locks listed while held, the
 * delay read from the drop-ins of its configuration directory on reload (the last file in name
 * order that sets {@code InhibitDelayMaxSec} wins, as logind's drop-ins), and {@link
 * #prepareForShutdown} to play logind's signal. Records its calls.
 *
 * <p>Thread-safe: every method is synchronized but the listeners' calls.
 */
public final class FakeLogind implements Logind {
  private static final Pattern DELAY = Pattern.compile("(?m)^InhibitDelayMaxSec=([0-9]+)\\s*$");

  private final Path confDir;
  private Duration delay;
  private final List<Inhibitor> held = new ArrayList<>();
  private final List<Consumer<Boolean>> listeners = new CopyOnWriteArrayList<>();
  private final List<String> calls = new ArrayList<>();
  private int locksTaken;
  private boolean closed;

  /** A logind with its default delay, 5 s, and no configuration directory. */
  public FakeLogind() {
    this(null, Duration.ofSeconds(5));
  }

  /**
   * @param confDir where its drop-ins are read from on reload; null for none
   * @param delay its {@code InhibitDelayMaxUSec} until a drop-in changes it
   */
  public FakeLogind(Path confDir, Duration delay) {
    this.confDir = confDir;
    this.delay = delay;
  }

  @Override
  public synchronized Duration inhibitDelayMax() {
    call("InhibitDelayMaxUSec");
    return delay;
  }

  @Override
  public synchronized InhibitLock inhibitShutdown() {
    call("Inhibit");
    Inhibitor i = new Inhibitor(WHAT, WHO, WHY, MODE, 0, ProcessHandle.current().pid());
    held.add(i);
    locksTaken++;
    return () -> {
      synchronized (FakeLogind.this) {
        held.remove(i);
      }
    };
  }

  @Override
  public synchronized List<Inhibitor> inhibitors() {
    call("ListInhibitors");
    return List.copyOf(held);
  }

  @Override
  public synchronized void monitorShutdown(Consumer<Boolean> listener) {
    call("AddMatch PrepareForShutdown");
    listeners.add(listener);
  }

  @Override
  public synchronized void reloadConfig() {
    call("KillUnit systemd-logind.service");
    if (confDir == null || !Files.isDirectory(confDir)) {
      return;
    }
    try (Stream<Path> files = Files.list(confDir)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".conf")).sorted().toList()) {
        Matcher m = DELAY.matcher(Files.readString(f));
        if (m.find()) {
          delay = Duration.ofSeconds(Long.parseLong(m.group(1)));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
    held.clear();
    listeners.clear();
  }

  /** Plays {@code PrepareForShutdown(active)} to every listener, on the caller's thread. */
  public void prepareForShutdown(boolean active) {
    for (Consumer<Boolean> l : listeners) {
      l.accept(active);
    }
  }

  /** Whether a delay lock is held now. */
  public synchronized boolean held() {
    return !held.isEmpty();
  }

  /** How many locks were taken since this fake was made. */
  public synchronized int locksTaken() {
    return locksTaken;
  }

  public synchronized List<String> calls() {
    return List.copyOf(calls);
  }

  private void call(String what) {
    if (closed) {
      throw new LogindException(what + ": the connection is closed");
    }
    calls.add(what);
  }
}
