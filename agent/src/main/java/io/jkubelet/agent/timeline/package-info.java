/**
 * Each pod's start-up timeline: when each phase of its start (admission, pod cgroup, sandbox,
 * network, volumes, image pulls, init containers, container starts, readiness) began and ended,
 * kept under the pod's directory so that a restart of jkubelet does not lose it.
 */
package io.jkubelet.agent.timeline;
