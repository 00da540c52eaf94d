/**
 * The container manager's cgroups, as upstream's {@code pkg/kubelet/cm}: the QoS hierarchy under
 * {@code kubepods}, each pod's cgroup with its limits, node allocatable on {@code kubepods}, and
 * the OOM score policy; {@link io.jkubelet.agent.cm.ContainerManager} is its edge.
 */
package io.jkubelet.agent.cm;
