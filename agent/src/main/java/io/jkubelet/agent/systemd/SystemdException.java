package io.jkubelet.agent.systemd;

/** A call to systemd that failed: {@link #errorName()} is the D-Bus error's name. */
public final class SystemdException extends RuntimeException {
  /** The unit is loaded already. */
  public static final String UNIT_EXISTS = "org.freedesktop.systemd1.UnitExists";

  /** The unit is not loaded. */
  public static final String NO_SUCH_UNIT = "org.freedesktop.systemd1.NoSuchUnit";

  /** The connection failed, or the job did not end well. */
  public static final String FAILED = "org.freedesktop.DBus.Error.Failed";

  private final String errorName;

  private SystemdException(String errorName, String message, Throwable cause) {
    super(message, cause);
    this.errorName = errorName;
  }

  public static SystemdException of(String errorName, String message) {
    return new SystemdException(errorName, message, null);
  }

  public static SystemdException causedBy(String errorName, String message, Throwable cause) {
    return new SystemdException(errorName, message, cause);
  }

  /** The D-Bus error's name, e.g. {@link #UNIT_EXISTS}. */
  public String errorName() {
    return errorName;
  }

  /** Whether this is the error {@code name}. */
  public boolean is(String name) {
    return errorName.equals(name);
  }
}
