/**
 * Container logs: the {@code /containerLogs} endpoint with upstream's rules, the CRI log files
 * under {@code /var/log/pods} and their links, and the node's log directory at {@code /logs/}.
 */
package io.jkubelet.agent.logs;
