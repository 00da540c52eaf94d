/**
 * Node and pod resource usage for {@code /stats/summary} (in the {@code stats/v1alpha1} shape) and
 * {@code /metrics/resource}: CPU and memory from cgroup files (v1 or v2, detected), network from
 * each pod sandbox's {@code /proc/<pid>/net/dev}, filesystems from the root and image directories.
 */
package io.jkubelet.agent.stats;
