/** The kubelet's HTTP endpoints: the read-only port's healthz, pods, events and probes. */
package io.jkubelet.agent.server;
