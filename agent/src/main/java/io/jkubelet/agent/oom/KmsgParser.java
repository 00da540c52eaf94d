package io.jkubelet.agent.oom;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads OOM kills out of kernel log records as {@code /dev/kmsg} gives them, one record per call:
 * {@code <priority>,<sequence>,<microseconds>,<flags>;<message>}, optionally followed by lines of
 * {@code KEY=value} that are ignored. A kill is the kernel's report (mm/oom_kill.c and
 * mm/memcontrol.c), in this order:
 *
 * <pre>
 * dd invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0
 * ...
 * memory: usage 16384kB, limit 16384kB, failcnt 0
 * ...
 * oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=...,mems_allowed=0,oom_memcg=/...,task_memcg=/kubepods/burstable/pod&lt;uid&gt;/&lt;id&gt;,task=dd,pid=30591,uid=0
 * Memory cgroup out of memory: Killed process 30591 (dd) total-vm:67804kB, anon-rss:16128kB, file-rss:1520kB, shmem-rss:0kB, UID:0 pgtables:72kB oom_score_adj:0
 * </pre>
 *
 * The kernel reports one kill at a time (under its {@code oom_lock}), so the lines of two kills do
 * not interleave. A kill is complete at its {@code Killed process} line; an {@code oom-kill:} line
 * whose {@code Killed process} line never came is given out at the next one.
 *
 * <p>Not thread-safe: one reader feeds it.
 */
final class KmsgParser {
  private static final Pattern USAGE =
      Pattern.compile("^memory: usage (\\d+)kB, limit (\\d+)kB, failcnt (\\d+)");
  private static final Pattern KILLED =
      Pattern.compile("Killed process (\\d+) \\((.*)\\)(?: total-vm:\\d+kB, anon-rss:(\\d+)kB)?");

  private long usageKb = -1;
  private long limitKb = -1;
  private KernelKill pending;

  /** Feeds one record; returns the kill it completes, if any. */
  Optional<KernelKill> feed(String record) {
    int semi = record.indexOf(';');
    if (semi < 0) {
      return Optional.empty();
    }
    long sequence = sequence(record.substring(0, semi));
    int end = record.indexOf('\n', semi);
    String message = end < 0 ? record.substring(semi + 1) : record.substring(semi + 1, end);
    if (message.contains(" invoked oom-killer: ")) {
      usageKb = -1;
      limitKb = -1;
      return Optional.empty();
    }
    Matcher usage = USAGE.matcher(message);
    if (usage.find()) {
      usageKb = Long.parseLong(usage.group(1));
      limitKb = Long.parseLong(usage.group(2));
      return Optional.empty();
    }
    if (message.startsWith("oom-kill:")) {
      KernelKill unfinished = pending;
      pending = oomKillLine(sequence, message.substring("oom-kill:".length()));
      return Optional.ofNullable(unfinished);
    }
    Matcher killed = KILLED.matcher(message);
    if (killed.find()) {
      long pid = Long.parseLong(killed.group(1));
      String command = killed.group(2);
      long anonRss = killed.group(3) == null ? -1 : Long.parseLong(killed.group(3));
      KernelKill p = pending;
      pending = null;
      if (p != null && p.pid() == pid) {
        return Optional.of(
            new KernelKill(
                p.sequence(),
                pid,
                command,
                p.constraint(),
                p.taskMemcg(),
                p.usageKb(),
                p.limitKb(),
                anonRss));
      }
      // Without its oom-kill: line (an older kernel, or a record lost): no cgroup to match.
      return Optional.of(new KernelKill(sequence, pid, command, "", "", usageKb, limitKb, anonRss));
    }
    return Optional.empty();
  }

  private KernelKill oomKillLine(long sequence, String fields) {
    String constraint = field(fields, "constraint=");
    String memcg = field(fields, "task_memcg=");
    // The command may hold commas: it runs from "task=" to the last ",pid=".
    int task = fields.lastIndexOf(",task=");
    int pidAt = fields.lastIndexOf(",pid=");
    String command = task >= 0 && pidAt > task ? fields.substring(task + 6, pidAt) : "";
    long pid = -1;
    if (pidAt >= 0) {
      int stop = fields.indexOf(',', pidAt + 5);
      try {
        pid = Long.parseLong(fields.substring(pidAt + 5, stop < 0 ? fields.length() : stop));
      } catch (NumberFormatException e) {
        pid = -1;
      }
    }
    return new KernelKill(sequence, pid, command, constraint, memcg, usageKb, limitKb, -1);
  }

  private static String field(String fields, String key) {
    int at = fields.startsWith(key) ? 0 : fields.indexOf("," + key);
    if (at < 0) {
      return "";
    }
    int from = at == 0 && fields.startsWith(key) ? key.length() : at + 1 + key.length();
    int stop = fields.indexOf(',', from);
    return fields.substring(from, stop < 0 ? fields.length() : stop);
  }

  private static long sequence(String prefix) {
    String[] parts = prefix.split(",", 4);
    try {
      return parts.length > 1 ? Long.parseLong(parts[1]) : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
