package org.freedesktop.systemd1;

import org.freedesktop.dbus.exceptions.DBusExecutionException;

/** The D-Bus error {@code org.freedesktop.systemd1.UnitExists}, for dbus-java to throw by name. */
public class UnitExists extends DBusExecutionException {
  private static final long serialVersionUID = 1L;

  public UnitExists(String message) {
    super(message);
  }
}
