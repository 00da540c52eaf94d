package io.jkubelet.agent.oom;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Kills read from kernel log records as /dev/kmsg gives them, one record per read. */
class KmsgParserTest {
  private static final String ID =
      "c42ed99a598ab02b4e5102dff8ecc09d53e0ee883a81663d892c14d7e8d81a11";

  /** A memory cgroup's kill as a 6.x kernel logs it (cgroup v1, cgroupfs driver), trimmed. */
  private static final List<String> MEMCG_KILL =
      List.of(
          "4,34405,23288458745,-;dd invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0,"
              + " oom_score_adj=0",
          "4,34406,23288458760,-;CPU: 1 UID: 0 PID: 10522 Comm: dd Not tainted 6.18.44 #1",
          "4,34411,23288458803,-; oom_kill_process.cold+0x8/0x8a",
          "6,34449,23288458968,-;memory: usage 16384kB, limit 16384kB, failcnt 94",
          "6,34450,23288458971,-;memory+swap: usage 16384kB, limit 16384kB, failcnt 0",
          "6,34452,23288458973,-;Memory cgroup stats for /kubepods/burstable/podu1/" + ID + ":",
          "6,34454,23288459005,-;rss 16580608",
          "6,34497,23288459022,-;[  10522]     0 10522    16951     4373     4032      341      "
              + "   0    73728        0             0 dd",
          "6,34498,23288459025,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset="
              + ID
              + ",mems_allowed=0,oom_memcg=/kubepods/burstable/podu1/"
              + ID
              + ",task_memcg=/kubepods/burstable/podu1/"
              + ID
              + ",task=dd,pid=10522,uid=0",
          "3,34499,23288459038,-;Memory cgroup out of memory: Killed process 10522 (dd)"
              + " total-vm:67804kB, anon-rss:16128kB, file-rss:1364kB, shmem-rss:0kB, UID:0"
              + " pgtables:72kB oom_score_adj:0\n SUBSYSTEM=memory\n");

  private static List<KernelKill> feed(KmsgParser p, List<String> records) {
    List<KernelKill> out = new ArrayList<>();
    records.forEach(r -> p.feed(r).ifPresent(out::add));
    return out;
  }

  @Test
  void aMemoryCgroupKillNamesTheProcessItsCgroupAndTheUsage() {
    List<KernelKill> kills = feed(new KmsgParser(), MEMCG_KILL);
    assertThat(kills)
        .containsExactly(
            new KernelKill(
                34498,
                10522,
                "dd",
                "CONSTRAINT_MEMCG",
                "/kubepods/burstable/podu1/" + ID,
                16384,
                16384,
                16128));
    assertThat(kills.getFirst().inContainer(ID)).isTrue();
    assertThat(kills.getFirst().inContainer("other")).isFalse();
  }

  @Test
  void theSystemdDriversScopeOnCgroupV2IsMatchedByTheContainerId() {
    String scope =
        "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podu1.slice/docker-"
            + ID
            + ".scope";
    List<KernelKill> kills =
        feed(
            new KmsgParser(),
            List.of(
                "4,1,1,-;stress invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0,"
                    + " oom_score_adj=999",
                "6,2,2,-;memory: usage 32768kB, limit 32768kB, failcnt 0",
                "6,3,3,-;swap: usage 0kB, limit 9007199254740988kB, failcnt 0",
                "6,4,4,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=docker-"
                    + ID
                    + ".scope,mems_allowed=0,oom_memcg="
                    + scope
                    + ",task_memcg="
                    + scope
                    + ",task=stress,pid=4242,uid=0",
                "3,5,5,-;Memory cgroup out of memory: Killed process 4242 (stress)"
                    + " total-vm:40000kB, anon-rss:31000kB, file-rss:0kB, shmem-rss:0kB, UID:0"
                    + " pgtables:100kB oom_score_adj:999"));
    assertThat(kills).hasSize(1);
    assertThat(kills.getFirst().inContainer(ID)).isTrue();
    assertThat(kills.getFirst().usageKb()).isEqualTo(32768);
    assertThat(kills.getFirst().command()).isEqualTo("stress");
  }

  @Test
  void aNodeWideKillHasNoLimitAndAnOomKillLineWithoutItsKilledLineIsStillGiven() {
    KmsgParser p = new KmsgParser();
    assertThat(
            p.feed(
                "6,10,10,-;oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,"
                    + "mems_allowed=0,global_oom,task_memcg=/docker/abc,task=java,pid=7,uid=0"))
        .isEmpty();
    Optional<KernelKill> first =
        p.feed(
            "6,11,11,-;oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,"
                + "mems_allowed=0,global_oom,task_memcg=/docker/def,task=a,b,pid=8,uid=0");
    assertThat(first)
        .get()
        .extracting(KernelKill::pid, KernelKill::usageKb)
        .containsExactly(7L, -1L);
    assertThat(
            p.feed(
                "3,12,12,-;Out of memory: Killed process 8 (a,b) total-vm:1kB, anon-rss:2kB,"
                    + " file-rss:0kB, shmem-rss:0kB"))
        .get()
        .extracting(KernelKill::command, KernelKill::taskMemcg, KernelKill::anonRssKb)
        .containsExactly("a,b", "/docker/def", 2L);
  }

  @Test
  void otherRecordsAreNoKills() {
    KmsgParser p = new KmsgParser();
    assertThat(p.feed("6,1,1,-;docker0: port 1(veth1) entered disabled state")).isEmpty();
    assertThat(p.feed("garbage without a separator")).isEmpty();
  }
}
