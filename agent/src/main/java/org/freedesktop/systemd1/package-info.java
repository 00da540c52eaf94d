/**
 * systemd's D-Bus errors as dbus-java maps them: it turns an error reply into the exception class
 * of the error's own name when there is one, and into a nameless {@code DBusExecutionException}
 * otherwise. Only these two are told apart by {@code io.jkubelet.agent.systemd}.
 */
package org.freedesktop.systemd1;
