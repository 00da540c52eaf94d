package io.jkubelet.agent.systemd;

import io.jkubelet.agent.util.RuntimeFailure;

/** A call to systemd that failed: {@link #errorName()} is the D-Bus error's name. */
public final class SystemdException extends RuntimeFailure {
  /** The unit is loaded already. */
  public static final String UNIT_EXISTS = "org.freedesktop.systemd1.UnitExists";

  /** The unit is not loaded. */
  public static final String NO_SUCH_UNIT = "org.freedesktop.systemd1.NoSuchUnit";

  /** The connection failed, or the job did not end well. */
  public static final String FAILED = "org.freedesktop.DBus.Error.Failed";

  public SystemdException(String errorName, String message) {
    super(errorName, message);
  }

  /** The D-Bus error's name, e.g. {@link #UNIT_EXISTS}. */
  public String errorName() {
    return detail();
  }

  /** Whether this is the error {@code name}. */
  public boolean is(String name) {
    return errorName().equals(name);
  }
}
