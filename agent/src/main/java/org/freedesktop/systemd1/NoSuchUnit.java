package org.freedesktop.systemd1;

import org.freedesktop.dbus.exceptions.DBusExecutionException;

/** The D-Bus error {@code org.freedesktop.systemd1.NoSuchUnit}, for dbus-java to throw by name. */
public class NoSuchUnit extends DBusExecutionException {
  private static final long serialVersionUID = 1L;

  public NoSuchUnit(String message) {
    super(message);
  }
}
