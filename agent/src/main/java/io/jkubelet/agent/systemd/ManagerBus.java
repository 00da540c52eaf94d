package io.jkubelet.agent.systemd;

import java.util.List;
import org.freedesktop.dbus.DBusPath;
import org.freedesktop.dbus.Struct;
import org.freedesktop.dbus.annotations.DBusInterfaceName;
import org.freedesktop.dbus.annotations.Position;
import org.freedesktop.dbus.exceptions.DBusException;
import org.freedesktop.dbus.interfaces.DBusInterface;
import org.freedesktop.dbus.messages.DBusSignal;
import org.freedesktop.dbus.types.UInt32;
import org.freedesktop.dbus.types.Variant;

/**
 * The D-Bus binding of {@code org.freedesktop.systemd1.Manager} for dbus-java: the methods and the
 * signal {@link DbusSystemd} uses, with systemd's names and signatures (see {@code
 * org.freedesktop.systemd1(5)}). Public only because dbus-java builds proxies and structs by
 * reflection; use {@link Systemd}.
 */
@DBusInterfaceName("org.freedesktop.systemd1.Manager")
public interface ManagerBus extends DBusInterface {
  /** {@code StartTransientUnit(in s name, in s mode, in a(sv) properties, in a(sa(sv)) aux)}. */
  DBusPath StartTransientUnit(String name, String mode, List<Property> properties, List<Aux> aux);

  /** {@code SetUnitProperties(in s name, in b runtime, in a(sv) properties)}. */
  void SetUnitProperties(String name, boolean runtime, List<Property> properties);

  /** {@code StopUnit(in s name, in s mode)}. */
  DBusPath StopUnit(String name, String mode);

  /** {@code Subscribe()}: systemd sends its job signals to this client from then on. */
  void Subscribe();

  /** {@code (sv)}: a property's name and value. */
  final class Property extends Struct {
    @Position(0)
    public final String name;

    @Position(1)
    public final Variant<?> value;

    public Property(String name, Variant<?> value) {
      this.name = name;
      this.value = value;
    }
  }

  /** {@code (sa(sv))}: an auxiliary unit; jkubelet passes none. */
  final class Aux extends Struct {
    @Position(0)
    public final String name;

    @Position(1)
    public final List<Property> properties;

    public Aux(String name, List<Property> properties) {
      this.name = name;
      this.properties = properties;
    }
  }

  /** {@code JobRemoved(u id, o job, s unit, s result)}: a job ended with {@code result}. */
  class JobRemoved extends DBusSignal {
    private final DBusPath job;
    private final String unit;
    private final String result;

    public JobRemoved(String path, UInt32 id, DBusPath job, String unit, String result)
        throws DBusException {
      super(path, id, job, unit, result);
      this.job = job;
      this.unit = unit;
      this.result = result;
    }

    public DBusPath job() {
      return job;
    }

    public String unit() {
      return unit;
    }

    /** {@code done}, {@code canceled}, {@code timeout}, {@code failed}, {@code dependency}… */
    public String result() {
      return result;
    }
  }
}
