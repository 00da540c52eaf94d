/** The kubelet's HTTP endpoints: the read-only port's healthz and pods. */
package io.jkubelet.agent.server;
