/**
 * systemd's manager over D-Bus, the few calls jkubelet makes of it: transient units with their
 * properties, as libcontainer's systemd cgroup manager; {@link io.jkubelet.agent.systemd.Systemd}
 * is its edge.
 */
package io.jkubelet.agent.systemd;
