package io.jkubelet.agent.nodeshutdown;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * systemd-logind ({@code org.freedesktop.login1.Manager}), as much of it as graceful node shutdown
 * needs, after upstream's {@code nodeshutdown/systemd}: the longest delay an inhibitor may hold a
 * shutdown ({@code InhibitDelayMaxUSec}), delay inhibitor locks ({@code Inhibit}), their list
 * ({@code ListInhibitors}), the {@code PrepareForShutdown} signal, and logind's configuration read
 * again ({@code KillUnit} of {@code systemd-logind.service} with {@code SIGHUP}, as upstream).
 *
 * <p>Implementations are thread-safe. {@link #connect()} gives the real one; tests use the fake
 * next to this package's tests, which follows the same contract ({@code LogindContract}).
 */
public interface Logind extends AutoCloseable {
  /** What upstream asks for: a shutdown delayed, by the kubelet, for its reason. */
  String WHAT = "shutdown";

  String WHO = "kubelet";
  String WHY = "Kubelet needs time to handle node shutdown";
  String MODE = "delay";

  /** A held inhibitor lock; closing it lets the shutdown go on. Closing twice does nothing. */
  interface InhibitLock extends AutoCloseable {
    @Override
    void close();
  }

  /** One inhibitor as {@code ListInhibitors} gives it: {@code (what, who, why, mode, uid, pid)}. */
  record Inhibitor(String what, String who, String why, String mode, long uid, long pid) {}

  /** logind's {@code InhibitDelayMaxUSec}: how long a delay lock may hold a shutdown. */
  Duration inhibitDelayMax();

  /**
   * Takes a delay lock on shutdown ({@code Inhibit(WHAT, WHO, WHY, MODE)}), held until closed or
   * until this process ends.
   *
   * @throws LogindException when logind refuses it
   */
  InhibitLock inhibitShutdown();

  /** The inhibitors logind knows now. */
  List<Inhibitor> inhibitors();

  /**
   * Calls {@code listener} with each {@code PrepareForShutdown(active)}: true when a shutdown
   * starts, false when one is cancelled. Called on the connection's own thread; must not block.
   */
  void monitorShutdown(Consumer<Boolean> listener);

  /** Makes logind read its configuration again (upstream's {@code ReloadLogindConf}). */
  void reloadConfig();

  /** Closes the connection; a lock taken through it is let go. */
  @Override
  void close();

  /**
   * Connects to logind on the system bus.
   *
   * @throws LogindException when there is no system bus or no logind on it
   */
  static Logind connect() {
    return DbusLogind.connect();
  }
}
