package io.jkubelet.agent.oom;

import io.jkubelet.config.Records;

/**
 * One process the OOM killer killed, as the kernel log reports it: the {@code oom-kill:} line
 * (constraint, the cgroup that ran out, the victim's cgroup, command and pid), the {@code Killed
 * process <pid> (<comm>) ... anon-rss:<n>kB} line that follows it, and the {@code memory: usage
 * <n>kB, limit <n>kB, failcnt <n>} line the kernel prints before them for a memory cgroup.
 *
 * @param sequence the kernel log record's sequence number (unique since boot)
 * @param pid the process killed, as the host sees it
 * @param command its command ({@code comm}: at most 15 characters)
 * @param constraint {@code CONSTRAINT_MEMCG} for a cgroup's limit, {@code CONSTRAINT_NONE} when the
 *     node ran out of memory
 * @param taskMemcg the killed process's memory cgroup ({@code /kubepods/burstable/pod<uid>/<id>})
 * @param usageKb the cgroup's usage when it ran out, or -1 when the log did not say
 * @param limitKb the cgroup's limit, or -1 when the log did not say
 * @param anonRssKb the killed process's anonymous memory, or -1 when the log did not say
 */
public record KernelKill(
    long sequence,
    long pid,
    String command,
    String constraint,
    String taskMemcg,
    long usageKb,
    long limitKb,
    long anonRssKb) {

  public KernelKill {
    Records.requireNonNull(KernelKill.class, command, constraint, taskMemcg);
  }

  /** Whether the victim's cgroup is the container's: its path names the container id. */
  public boolean inContainer(String containerId) {
    return !containerId.isEmpty() && taskMemcg.contains(containerId);
  }
}
