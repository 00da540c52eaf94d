package io.jkubelet.agent.systemd;

import io.jkubelet.agent.util.Errors;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.freedesktop.dbus.DBusPath;
import org.freedesktop.dbus.connections.AbstractConnection;
import org.freedesktop.dbus.connections.impl.DBusConnection;
import org.freedesktop.dbus.connections.impl.DBusConnectionBuilder;
import org.freedesktop.dbus.connections.impl.DirectConnection;
import org.freedesktop.dbus.connections.impl.DirectConnectionBuilder;
import org.freedesktop.dbus.exceptions.DBusException;
import org.freedesktop.dbus.exceptions.DBusExecutionException;
import org.freedesktop.dbus.interfaces.Properties;
import org.freedesktop.dbus.types.UInt64;
import org.freedesktop.dbus.types.Variant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Systemd} over a dbus-java connection, as go-systemd's {@code dbus.Conn} that libcontainer
 * uses: subscribed to the manager's signals, each job awaited through its {@code JobRemoved}.
 *
 * <p>Thread-safe: dbus-java's connection is; {@code jobs} is guarded by itself. NOTE: a call that
 * queues a job holds {@code jobs} until the job's path is registered, so that a {@code JobRemoved}
 * delivered before the call's reply is read (signals are handled on dbus-java's own threads) still
 * finds its waiter.
 */
final class DbusSystemd implements Systemd {
  private static final Logger log = LoggerFactory.getLogger(DbusSystemd.class);

  static final String DESTINATION = "org.freedesktop.systemd1";
  static final String OBJECT = "/org/freedesktop/systemd1";
  static final Path PRIVATE_SOCKET = Path.of("/run/systemd/private");

  /** How long a job is awaited before going on, longer than libcontainer's second (slow guests). */
  private static final long JOB_WAIT_SECONDS = 5;

  private static final BigInteger UINT64_MAX =
      BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

  private final AbstractConnection connection;
  private final ManagerBus manager;
  private final Properties properties;
  private final Map<String, CompletableFuture<String>> jobs = new HashMap<>();

  private DbusSystemd(AbstractConnection connection, ManagerBus manager, Properties properties) {
    this.connection = connection;
    this.manager = manager;
    this.properties = properties;
  }

  static DbusSystemd connect() {
    DbusSystemd systemd;
    try {
      DBusConnection bus = DBusConnectionBuilder.forSystemBus().build();
      systemd =
          new DbusSystemd(
              bus,
              bus.getRemoteObject(DESTINATION, OBJECT, ManagerBus.class),
              bus.getRemoteObject(DESTINATION, OBJECT, Properties.class));
    } catch (DBusException | RuntimeException busError) {
      if (!Files.exists(PRIVATE_SOCKET)) {
        throw Errors.withCause(
            new SystemdException(
                SystemdException.FAILED,
                "cannot connect to the system bus: " + busError.getMessage()),
            busError);
      }
      try {
        DirectConnection direct =
            DirectConnectionBuilder.forAddress("unix:path=" + PRIVATE_SOCKET).build();
        systemd =
            new DbusSystemd(
                direct,
                direct.getRemoteObject(OBJECT, ManagerBus.class),
                direct.getRemoteObject(OBJECT, Properties.class));
      } catch (DBusException | RuntimeException e) {
        e.addSuppressed(busError);
        throw Errors.withCause(
            new SystemdException(
                SystemdException.FAILED,
                "cannot connect to systemd at the system bus or " + PRIVATE_SOCKET + ": " + e),
            e);
      }
    }
    systemd.subscribe();
    return systemd;
  }

  private void subscribe() {
    try {
      connection.addSigHandler(ManagerBus.JobRemoved.class, this::jobRemoved);
      call(
          "Subscribe",
          () -> {
            manager.Subscribe();
            return null;
          });
    } catch (DBusException e) {
      close();
      throw Errors.withCause(
          new SystemdException(
              SystemdException.FAILED, "cannot subscribe to systemd's signals: " + e.getMessage()),
          e);
    } catch (SystemdException e) {
      close();
      throw e;
    }
  }

  private void jobRemoved(ManagerBus.JobRemoved signal) {
    CompletableFuture<String> waiter;
    synchronized (jobs) {
      waiter = jobs.get(signal.job().getPath());
    }
    if (waiter != null) {
      waiter.complete(signal.result());
    }
  }

  @Override
  public void startTransientUnit(String unit, List<UnitProperty> props) {
    String result =
        awaitJob(
            unit,
            "StartTransientUnit",
            () -> manager.StartTransientUnit(unit, "replace", toBus(props), List.of()));
    if (!result.equals("done") && !result.equals("timeout-waiting")) {
      throw new SystemdException(
          SystemdException.FAILED,
          "error creating systemd unit `" + unit + "`: got `" + result + "`");
    }
  }

  @Override
  public void setUnitProperties(String unit, List<UnitProperty> props) {
    call(
        "SetUnitProperties " + unit,
        () -> {
          manager.SetUnitProperties(unit, true, toBus(props));
          return null;
        });
  }

  @Override
  public void stopUnit(String unit) {
    try {
      String result = awaitJob(unit, "StopUnit", () -> manager.StopUnit(unit, "replace"));
      if (!result.equals("done")) {
        log.warn("systemd: error removing unit `{}`: got `{}`; continuing", unit, result);
      }
    } catch (SystemdException e) {
      if (!e.is(SystemdException.NO_SUCH_UNIT)) {
        throw e;
      }
    }
  }

  @Override
  public int version() {
    Object v =
        call("Get Version", () -> properties.Get("org.freedesktop.systemd1.Manager", "Version"));
    return parseVersion(String.valueOf(v));
  }

  /** libcontainer's {@code systemdVersionAtoi}: the first number, {@code v} or quotes before it. */
  static int parseVersion(String version) {
    Matcher m = Pattern.compile("^\"?v?([0-9]+)").matcher(version);
    if (!m.find()) {
      throw new SystemdException(
          SystemdException.FAILED, "cannot parse systemd's version \"" + version + "\"");
    }
    return Integer.parseInt(m.group(1));
  }

  @Override
  public void close() {
    connection.disconnect();
  }

  /** Queues a job with {@code call} and waits for its end; "timeout-waiting" when it is late. */
  private String awaitJob(String unit, String what, Supplier<DBusPath> call) {
    CompletableFuture<String> done = new CompletableFuture<>();
    String job;
    synchronized (jobs) {
      job = call(what + " " + unit, call).getPath();
      jobs.put(job, done);
    }
    try {
      return done.get(JOB_WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      log.warn(
          "systemd: timed out while waiting for {}({}) completion signal from dbus; continuing",
          what,
          unit);
      return "timeout-waiting";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw Errors.withCause(
          new SystemdException(SystemdException.FAILED, "interrupted waiting for " + job), e);
    } catch (ExecutionException e) {
      throw Errors.withCause(new SystemdException(SystemdException.FAILED, e.getMessage()), e);
    } finally {
      synchronized (jobs) {
        jobs.remove(job);
      }
    }
  }

  private static <T> T call(String what, Supplier<T> call) {
    try {
      return call.get();
    } catch (DBusExecutionException e) {
      String name = errorName(e);
      throw Errors.withCause(
          new SystemdException(name, what + ": " + name + ": " + e.getMessage()), e);
    }
  }

  /**
   * The D-Bus error's name. NOTE: dbus-java keeps it only as the class of the exception it throws
   * (a class of that name, or its own {@code org.freedesktop.dbus.errors} for the bus's errors);
   * for others it throws a bare {@link DBusExecutionException}: {@link SystemdException#FAILED}.
   */
  static String errorName(DBusExecutionException e) {
    return switch (e) {
      case org.freedesktop.systemd1.UnitExists x -> SystemdException.UNIT_EXISTS;
      case org.freedesktop.systemd1.NoSuchUnit x -> SystemdException.NO_SUCH_UNIT;
      default ->
          e.getClass() == DBusExecutionException.class
              ? SystemdException.FAILED
              : e.getClass()
                  .getName()
                  .replace("org.freedesktop.dbus.errors.", "org.freedesktop.DBus.Error.");
    };
  }

  private static List<ManagerBus.Property> toBus(List<UnitProperty> props) {
    List<ManagerBus.Property> out = new ArrayList<>();
    for (UnitProperty p : props) {
      Variant<?> v =
          switch (p.value()) {
            case UnitProperty.U64 u ->
                new Variant<>(
                    u.value() == UnitProperty.INFINITY
                        ? new UInt64(UINT64_MAX)
                        : new UInt64(new BigInteger(Long.toUnsignedString(u.value()))));
            case UnitProperty.Bool b -> new Variant<>(b.value());
            case UnitProperty.Str s -> new Variant<>(s.value());
            case UnitProperty.Strs s -> new Variant<>(s.value(), "as");
          };
      out.add(new ManagerBus.Property(p.name(), v));
    }
    return out;
  }
}
