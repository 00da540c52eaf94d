/**
 * What the kernel's OOM killer did in a container's cgroup: its memory cgroup's counters and the
 * kernel log's kill records, behind one small interface, {@link io.jkubelet.agent.oom.OomSource}.
 */
package io.jkubelet.agent.oom;
