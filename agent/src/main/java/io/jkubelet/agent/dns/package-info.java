/**
 * A pod's name resolution, as upstream's {@code network/dns} and its managed hosts file: the
 * resolv.conf of each sandbox from the DNS policy ({@link io.jkubelet.agent.dns.PodDns}) and the
 * kubelet-managed {@code /etc/hosts} ({@link io.jkubelet.agent.dns.HostsFile}).
 */
package io.jkubelet.agent.dns;
