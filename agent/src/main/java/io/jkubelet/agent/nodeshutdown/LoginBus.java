package io.jkubelet.agent.nodeshutdown;

import java.util.List;
import org.freedesktop.dbus.Struct;
import org.freedesktop.dbus.annotations.DBusInterfaceName;
import org.freedesktop.dbus.annotations.Position;
import org.freedesktop.dbus.exceptions.DBusException;
import org.freedesktop.dbus.interfaces.DBusInterface;
import org.freedesktop.dbus.messages.DBusSignal;
import org.freedesktop.dbus.types.UInt32;

/**
 * The D-Bus binding of {@code org.freedesktop.login1.Manager} for dbus-java: the methods and the
 * signal {@link DbusLogind} uses, with logind's names and signatures (see {@code
 * org.freedesktop.login1(5)}). Public only because dbus-java builds proxies, structs and signals by
 * reflection; use {@link Logind}.
 */
@DBusInterfaceName("org.freedesktop.login1.Manager")
public interface LoginBus extends DBusInterface {
  /** {@code ListInhibitors(out a(ssssuu) inhibitors)}. */
  List<InhibitorEntry> ListInhibitors();

  /** {@code (ssssuu)}: what, who, why, mode, uid, pid. */
  final class InhibitorEntry extends Struct {
    @Position(0)
    public final String what;

    @Position(1)
    public final String who;

    @Position(2)
    public final String why;

    @Position(3)
    public final String mode;

    @Position(4)
    public final UInt32 uid;

    @Position(5)
    public final UInt32 pid;

    public InhibitorEntry(
        String what, String who, String why, String mode, UInt32 uid, UInt32 pid) {
      this.what = what;
      this.who = who;
      this.why = why;
      this.mode = mode;
      this.uid = uid;
      this.pid = pid;
    }
  }

  /** {@code PrepareForShutdown(b start)}: a shutdown starts (true) or was cancelled (false). */
  class PrepareForShutdown extends DBusSignal {
    private final boolean start;

    public PrepareForShutdown(String path, boolean start) throws DBusException {
      super(path, start);
      this.start = start;
    }

    public boolean start() {
      return start;
    }
  }

  /**
   * The one call of {@code org.freedesktop.systemd1.Manager} upstream makes for logind: {@code
   * KillUnit(in s name, in s whom, in i signal)}, to send logind {@code SIGHUP}.
   */
  @DBusInterfaceName("org.freedesktop.systemd1.Manager")
  interface SystemdManager extends DBusInterface {
    void KillUnit(String name, String whom, int signal);
  }
}
