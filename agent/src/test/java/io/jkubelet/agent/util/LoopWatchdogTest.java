package io.jkubelet.agent.util;

import static java.lang.Thread.State.WAITING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoopGroup;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class LoopWatchdogTest {
  private final FakeClock clock = new FakeClock();
  private final FakeSchedulers schedulers = new FakeSchedulers(clock);
  private final EventLoopGroup loop = new DefaultEventLoopGroup(1);
  private final LoopWatchdog watchdog = new LoopWatchdog(() -> loop, clock, schedulers);
  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private final Logger log = (Logger) LoggerFactory.getLogger(LoopWatchdog.class);

  @BeforeEach
  void capture() {
    logs.start();
    log.addAppender(logs);
  }

  @AfterEach
  void stop() throws InterruptedException {
    watchdog.stop();
    log.detachAppender(logs);
    loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
  }

  private List<String> warnings() {
    return logs.list.stream()
        .filter(e -> e.getLevel() == Level.WARN)
        .map(ILoggingEvent::getFormattedMessage)
        .toList();
  }

  /** Steps the fake clock by a period, then lets the loop run what the check handed it. */
  private void tick() throws Exception {
    schedulers.advance(LoopWatchdog.PERIOD);
    drain();
  }

  private void drain() throws Exception {
    loop.submit(() -> {}).get(5, TimeUnit.SECONDS);
  }

  @Test
  void aLoopThatRunsItsTasksIsNeverReported() throws Exception {
    watchdog.start();
    schedulers.runDue();
    drain();
    for (int i = 0; i < 10; i++) {
      tick();
    }
    assertThat(warnings()).isEmpty();
    assertThat(watchdog.blocks()).isZero();
  }

  @Test
  void aBlockedLoopIsReportedOnceWithItsStackAndAgainWhenItRuns() throws Exception {
    watchdog.start();
    schedulers.runDue();
    drain(); // the first probe has run: the loop's thread is known from here on
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch blocking = new CountDownLatch(1);
    AtomicReference<Thread> loopThread = new AtomicReference<>();
    loop.execute(
        () -> {
          loopThread.set(Thread.currentThread());
          blocking.countDown();
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    assertThat(blocking.await(5, TimeUnit.SECONDS)).isTrue();
    // Parked in the await, not still on its way out of countDown, when the stack is taken.
    await().atMost(Duration.ofSeconds(5)).until(() -> loopThread.get().getState() == WAITING);
    schedulers.advance(LoopWatchdog.PERIOD); // the next probe now waits behind the blocking task
    schedulers.advance(LoopWatchdog.BLOCKED);
    assertThat(warnings()).as("waited exactly BLOCKED: not yet").isEmpty();
    schedulers.advance(LoopWatchdog.PERIOD);
    assertThat(warnings())
        .singleElement()
        .satisfies(
            w ->
                assertThat(w)
                    .startsWith("Netty loop defaultEventLoopGroup-")
                    .contains("has run nothing for 3000 ms")
                    .contains("CountDownLatch.await"));
    assertThat(watchdog.blocks()).isEqualTo(1);

    release.countDown();
    drain();
    tick();
    assertThat(warnings()).hasSize(2);
    assertThat(warnings().get(1))
        .matches("Netty loop defaultEventLoopGroup-\\S+ runs again after \\d+ ms");
    tick();
    tick();
    assertThat(warnings()).hasSize(2);
  }
}
