package io.jkubelet.agent.nodeshutdown;

import io.jkubelet.agent.util.Errors;
import java.io.IOException;
import java.math.BigInteger;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.freedesktop.dbus.connections.impl.DBusConnection;
import org.freedesktop.dbus.connections.impl.DBusConnectionBuilder;
import org.freedesktop.dbus.exceptions.DBusException;
import org.freedesktop.dbus.exceptions.DBusExecutionException;
import org.freedesktop.dbus.interfaces.Properties;
import org.freedesktop.dbus.types.UInt64;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Logind} over a dbus-java connection to the system bus, as upstream's {@code
 * systemd.DBusCon} over godbus.
 *
 * <p>NOTE: the lock {@code Inhibit} returns is a file descriptor passed over the bus socket ({@code
 * SCM_RIGHTS}). dbus-java receives one only on a transport that can (junixsocket's); the JDK's unix
 * socket transport jkubelet ships cannot, and the bus then refuses logind's reply. So the lock is
 * taken by logind's own client, {@code systemd-inhibit} with the same what, who, why and mode,
 * holding it around a {@code cat} whose standard input is ours: closing that input, or this
 * process's end, lets it go, as closing the descriptor would.
 *
 * <p>Thread-safe: dbus-java's connection is; the rest is immutable.
 */
final class DbusLogind implements Logind {
  private static final Logger log = LoggerFactory.getLogger(DbusLogind.class);

  static final String DESTINATION = "org.freedesktop.login1";
  static final String OBJECT = "/org/freedesktop/login1";
  static final String INTERFACE = "org.freedesktop.login1.Manager";

  /** How long {@code systemd-inhibit} has to show its lock in logind's list. */
  private static final Duration INHIBIT_WAIT = Duration.ofSeconds(5);

  private static final int SIGHUP = 1;

  private final DBusConnection bus;
  private final LoginBus login;
  private final Properties properties;
  private final LoginBus.SystemdManager systemd;

  private DbusLogind(DBusConnection bus) throws DBusException {
    this.bus = bus;
    this.login = bus.getRemoteObject(DESTINATION, OBJECT, LoginBus.class);
    this.properties = bus.getRemoteObject(DESTINATION, OBJECT, Properties.class);
    this.systemd =
        bus.getRemoteObject(
            "org.freedesktop.systemd1", "/org/freedesktop/systemd1", LoginBus.SystemdManager.class);
  }

  static DbusLogind connect() {
    DBusConnection bus;
    try {
      bus = DBusConnectionBuilder.forSystemBus().build();
    } catch (DBusException | RuntimeException e) {
      throw Errors.withCause(
          new LogindException("cannot connect to the system bus: " + e.getMessage()), e);
    }
    try {
      DbusLogind logind = new DbusLogind(bus);
      logind.inhibitDelayMax(); // logind answers, or this fails now
      return logind;
    } catch (DBusException | RuntimeException e) {
      bus.disconnect();
      throw Errors.withCause(
          new LogindException("cannot reach logind on the system bus: " + e.getMessage()), e);
    }
  }

  @Override
  public Duration inhibitDelayMax() {
    Object v = call("InhibitDelayMaxUSec", () -> properties.Get(INTERFACE, "InhibitDelayMaxUSec"));
    if (!(v instanceof UInt64 u)) {
      throw new LogindException(
          "InhibitDelayMaxUSec from logind is not a uint64 as expected: " + v);
    }
    BigInteger usec = u.value();
    return Duration.ofNanos(usec.min(BigInteger.valueOf(Long.MAX_VALUE / 1000)).longValue() * 1000);
  }

  /**
   * Through {@code systemd-inhibit}, never the bus's {@code Inhibit}: its reply carries the lock's
   * descriptor, which this transport cannot receive; the call would only wait for dbus-java's reply
   * timeout (about 20 s on a Debian 12 guest, a start held up that long) and fail.
   */
  @Override
  public InhibitLock inhibitShutdown() {
    return InhibitProcess.take(this);
  }

  @Override
  public List<Inhibitor> inhibitors() {
    return call("ListInhibitors", login::ListInhibitors).stream()
        .map(e -> new Inhibitor(e.what, e.who, e.why, e.mode, e.uid.longValue(), e.pid.longValue()))
        .toList();
  }

  @Override
  public void monitorShutdown(Consumer<Boolean> listener) {
    try {
      bus.addSigHandler(LoginBus.PrepareForShutdown.class, s -> listener.accept(s.start()));
    } catch (DBusException e) {
      throw Errors.withCause(
          new LogindException("failed to monitor shutdown: " + e.getMessage()), e);
    }
  }

  @Override
  public void reloadConfig() {
    call(
        "KillUnit systemd-logind.service",
        () -> {
          systemd.KillUnit("systemd-logind.service", "all", SIGHUP);
          return null;
        });
  }

  @Override
  public void close() {
    bus.disconnect();
  }

  private static <T> T call(String what, java.util.function.Supplier<T> call) {
    try {
      return call.get();
    } catch (DBusExecutionException e) {
      throw Errors.withCause(new LogindException(what + ": " + e.getMessage()), e);
    }
  }

  /** A delay lock held by {@code systemd-inhibit} around a {@code cat} of our pipe. */
  private record InhibitProcess(Process process) implements InhibitLock {
    static InhibitProcess take(Logind logind) {
      Process p;
      try {
        p =
            new ProcessBuilder(
                    "systemd-inhibit",
                    "--what=" + WHAT,
                    "--who=" + WHO,
                    "--why=" + WHY,
                    "--mode=" + MODE,
                    "cat")
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectErrorStream(true)
                .start();
      } catch (IOException e) {
        throw Errors.withCause(
            new LogindException("failed creating systemd inhibitor: " + e.getMessage()), e);
      }
      InhibitProcess lock = new InhibitProcess(p);
      long waits = INHIBIT_WAIT.toMillis() / 100;
      try {
        for (long i = 0; i < waits; i++) {
          if (logind.inhibitors().stream()
              .anyMatch(x -> x.pid() == p.pid() && x.who().equals(WHO))) {
            return lock;
          }
          // Paced by the child: it ends at once when logind refuses the lock.
          if (p.waitFor(100, TimeUnit.MILLISECONDS)) {
            throw new LogindException(
                "failed creating systemd inhibitor: systemd-inhibit exited " + p.exitValue());
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        lock.close();
        throw Errors.withCause(new LogindException("interrupted taking the inhibitor lock"), e);
      } catch (RuntimeException e) {
        lock.close();
        throw e;
      }
      lock.close();
      throw new LogindException(
          "failed creating systemd inhibitor: not listed after " + INHIBIT_WAIT.toSeconds() + "s");
    }

    @Override
    public void close() {
      try {
        process.getOutputStream().close();
        if (!process.waitFor(2, TimeUnit.SECONDS)) {
          process.destroy();
        }
      } catch (IOException e) {
        process.destroy();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        process.destroy();
      }
    }
  }
}
