package io.jkubelet.agent.systemd;

import java.util.List;

/**
 * systemd's manager ({@code org.freedesktop.systemd1.Manager}), as much of it as the systemd cgroup
 * driver needs, after libcontainer's {@code cgroups/systemd}: transient units made with their
 * properties, properties set on them, units stopped. Each call returns when systemd's job for it is
 * done, or after a second without its end (as libcontainer, which then goes on).
 *
 * <p>Implementations are thread-safe. {@link #connect()} gives the real one; tests use the fake
 * next to this package's tests, which follows the same contract.
 */
public interface Systemd extends AutoCloseable {
  /**
   * Starts the transient unit {@code unit} with {@code properties} ({@code StartTransientUnit},
   * mode {@code replace}).
   *
   * @throws SystemdException {@link SystemdException#UNIT_EXISTS} when it is loaded already, or
   *     another error of systemd's or of the connection
   */
  void startTransientUnit(String unit, List<UnitProperty> properties);

  /**
   * Sets {@code properties} on the loaded unit {@code unit} until the next boot ({@code
   * SetUnitProperties} with {@code runtime}); systemd applies them to its cgroup at once.
   *
   * @throws SystemdException {@link SystemdException#NO_SUCH_UNIT} when it is not loaded, or
   *     another error
   */
  void setUnitProperties(String unit, List<UnitProperty> properties);

  /**
   * Stops the unit ({@code StopUnit}, mode {@code replace}); a transient unit is then gone. A unit
   * that is not loaded is not an error.
   */
  void stopUnit(String unit);

  /** systemd's version number ({@code 252} of {@code "252.19-1~deb12u1"}). */
  int version();

  /** Closes the connection; the calls then fail. */
  @Override
  void close();

  /**
   * Connects to the system bus ({@code /run/dbus/system_bus_socket}), or, when there is no bus
   * daemon, to systemd's private socket ({@code /run/systemd/private}, root only), as
   * libcontainer's go-systemd does.
   *
   * @throws SystemdException when neither answers
   */
  static Systemd connect() {
    return DbusSystemd.connect();
  }
}
