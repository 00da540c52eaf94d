package io.jkubelet.agent.oom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.agent.util.FakeSchedulers;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The host's kernel log reader on a named pipe in place of {@code /dev/kmsg}: a pipe opened without
 * blocking has, as the kernel log, nothing to give until a record is written, and gives each record
 * written between two reads as one.
 */
class HostOomSourceTest {
  private static final String ID =
      "c42ed99a598ab02b4e5102dff8ecc09d53e0ee883a81663d892c14d7e8d81a11";
  private static final String OOM_KILL =
      "6,34498,23288459025,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),task_memcg="
          + "/kubepods/burstable/podu1/"
          + ID
          + ",task=dd,pid=10522,uid=0";
  private static final String KILLED =
      "3,34499,23288459038,-;Memory cgroup out of memory: Killed process 10522 (dd)"
          + " total-vm:67804kB, anon-rss:16128kB, file-rss:1364kB\n SUBSYSTEM=memory\n";

  @TempDir Path dir;
  private final FakeSchedulers schedulers = new FakeSchedulers(new FakeClock());
  private HostOomSource source;
  private FileOutputStream kernel;

  private Path pipe() throws Exception {
    Path p = dir.resolve("kmsg");
    Process mkfifo = new ProcessBuilder("mkfifo", p.toString()).inheritIO().start();
    assertThat(mkfifo.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(mkfifo.exitValue()).isZero();
    return p;
  }

  private HostOomSource started(Path kmsg) {
    source = new HostOomSource(new CgroupMemory(dir, uid -> List.of()), kmsg, schedulers);
    source.start();
    return source;
  }

  private void write(String record) throws IOException {
    kernel.write(record.getBytes(StandardCharsets.UTF_8));
    kernel.flush();
  }

  @AfterEach
  void stop() throws IOException {
    if (source != null) {
      source.stop();
    }
    if (kernel != null) {
      kernel.close();
    }
  }

  @Test
  void aKillIsTakenForItsContainerAsSoonAsTheKernelHasReportedIt() throws Exception {
    Path kmsg = pipe();
    started(kmsg);
    kernel = new FileOutputStream(kmsg.toFile()); // the reader has it open: this does not block
    assertThat(source.kernelLogMissing()).isEmpty();

    write(OOM_KILL);
    assertThat(source.takeKills(ID)).isEmpty(); // read now: the kill is not complete yet
    write(KILLED);
    // No tick of the reader's schedule in between: taking the kills reads the log first.
    assertThat(source.takeKills(ID))
        .singleElement()
        .satisfies(
            k -> {
              assertThat(k.pid()).isEqualTo(10522);
              assertThat(k.command()).isEqualTo("dd");
              assertThat(k.anonRssKb()).isEqualTo(16128);
            });
    assertThat(source.takeKills(ID)).isEmpty(); // each kill is given once
  }

  @Test
  void theListenerHearsOfAKillAtTheNextReadingAndNotAfterTheStop() throws Exception {
    Path kmsg = pipe();
    List<KernelKill> heard = new CopyOnWriteArrayList<>();
    source = new HostOomSource(new CgroupMemory(dir, uid -> List.of()), kmsg, schedulers);
    source.onKill(heard::add);
    source.start();
    kernel = new FileOutputStream(kmsg.toFile());

    write(OOM_KILL);
    schedulers.advance(HostOomSource.PERIOD);
    assertThat(heard).isEmpty();
    write(KILLED);
    schedulers.advance(HostOomSource.PERIOD);
    assertThat(heard).singleElement().extracting(KernelKill::pid).isEqualTo(10522L);

    source.stop();
    // The log is closed (the pipe has no reader left) and nothing is scheduled any more.
    assertThatThrownBy(() -> write(OOM_KILL)).hasMessageContaining("Broken pipe");
    assertThat(schedulers.pending()).isZero();
    schedulers.advance(Duration.ofSeconds(10));
    assertThat(heard).hasSize(1);
  }

  @Test
  void aKillReadWhileKillsAreTakenIsToldAtTheReadersNextTickOnItsThread() throws Exception {
    Path kmsg = pipe();
    List<Thread> tellers = new CopyOnWriteArrayList<>();
    source = new HostOomSource(new CgroupMemory(dir, uid -> List.of()), kmsg, schedulers);
    source.onKill(k -> tellers.add(Thread.currentThread()));
    source.start();
    kernel = new FileOutputStream(kmsg.toFile());
    write(OOM_KILL);
    assertThat(source.takeKills("another-container")).isEmpty();
    write(KILLED);
    assertThat(source.takeKills("another-container")).isEmpty(); // the kill is read here
    assertThat(tellers).isEmpty(); // and not told on this thread, which may hold a pod's lock
    ExecutorService reader = Executors.newSingleThreadExecutor();
    try {
      Thread readerThread = reader.submit(Thread::currentThread).get(10, TimeUnit.SECONDS);
      reader.submit(() -> schedulers.advance(HostOomSource.PERIOD)).get(10, TimeUnit.SECONDS);
      assertThat(tellers).containsExactly(readerThread);
    } finally {
      reader.shutdownNow();
    }
    assertThat(source.takeKills(ID)).singleElement().extracting(KernelKill::pid).isEqualTo(10522L);
  }

  /**
   * As at a restart on a node whose kernel log holds kills: the reader tells the listener of a kill
   * while a pod's sync takes kills. The listener (OomEvents) waits on the pod's lock, which the
   * sync holds around its takeKills: the sync must get its kills, and the listener its turn after.
   */
  @Test
  void aListenerWaitingOnTheLockOfOneTakingKillsHoldsNeitherUp() throws Exception {
    Path kmsg = pipe();
    ReentrantLock podLock = new ReentrantLock();
    CountDownLatch told = new CountDownLatch(1);
    CountDownLatch locked = new CountDownLatch(1);
    List<KernelKill> heard = new CopyOnWriteArrayList<>();
    source = new HostOomSource(new CgroupMemory(dir, uid -> List.of()), kmsg, schedulers);
    source.onKill(
        k -> {
          told.countDown();
          try {
            podLock.lockInterruptibly(); // interrupted only when the test fails, to end it
            podLock.unlock();
            heard.add(k);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    source.start();
    kernel = new FileOutputStream(kmsg.toFile());
    write(OOM_KILL);
    schedulers.advance(HostOomSource.PERIOD); // the kill's first record read: nothing to tell yet
    write(KILLED);
    ExecutorService sync = Executors.newSingleThreadExecutor();
    ExecutorService reader = Executors.newSingleThreadExecutor();
    try {
      Future<List<KernelKill>> taken =
          sync.submit(
              () -> {
                podLock.lock();
                try {
                  locked.countDown();
                  assertThat(told.await(10, TimeUnit.SECONDS)).isTrue();
                  return source.takeKills(ID);
                } finally {
                  podLock.unlock();
                }
              });
      assertThat(locked.await(10, TimeUnit.SECONDS)).isTrue();
      Future<?> tick = reader.submit(() -> schedulers.advance(HostOomSource.PERIOD));
      assertThat(taken.get(10, TimeUnit.SECONDS))
          .singleElement()
          .extracting(KernelKill::pid)
          .isEqualTo(10522L);
      tick.get(10, TimeUnit.SECONDS);
      assertThat(heard).singleElement().extracting(KernelKill::pid).isEqualTo(10522L);
    } finally {
      reader.shutdownNow(); // a listener still waiting lets the reader go, and so the sync
      sync.shutdownNow();
    }
  }

  @Test
  void aLogThatCannotBeOpenedIsSaidAndNothingIsScheduled() {
    started(dir.resolve("no-such-kmsg"));
    assertThat(source.kernelLogMissing())
        .hasValueSatisfying(m -> assertThat(m).contains("no-such-kmsg").contains("not readable"));
    assertThat(source.takeKills(ID)).isEmpty();
    assertThat(schedulers.pending()).isZero();
  }

  @Test
  void theHostsKernelLogIsReadToItsEndWithoutWaitingForMore() {
    Path kmsg = Path.of("/dev/kmsg");
    assumeTrue(Files.isReadable(kmsg), "the kernel log is not readable here");
    started(kmsg);
    assertThat(source.kernelLogMissing()).isEmpty();
    // Reads every record the kernel keeps, then returns: a blocking read would never return.
    assertTimeoutPreemptively(Duration.ofSeconds(30), () -> source.takeKills(ID));
    assertTimeoutPreemptively(
        Duration.ofSeconds(5), () -> schedulers.advance(HostOomSource.PERIOD.multipliedBy(3)));
  }
}
