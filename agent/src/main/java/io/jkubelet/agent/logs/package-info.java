/** Container logs: the {@code /containerLogs} endpoint, its options and upstream's rules. */
package io.jkubelet.agent.logs;
