package io.jkubelet.agent.streaming;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** What a runtime's reader gets of the chunks the client sent, and when reading is paused. */
class InboundBytesTest {
  private final List<Boolean> pauses = new CopyOnWriteArrayList<>();
  private final InboundBytes in = new InboundBytes(pauses::add);

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  @Test
  void oneReadTakesWhatSeveralChunksHoldInTheirOrderUpToTheBuffersSize() throws Exception {
    in.offer(bytes("abc"));
    in.offer(bytes("defg"));
    in.offer(bytes("hij"));
    byte[] buf = new byte[6];
    assertThat(in.read(buf)).isEqualTo(6);
    assertThat(new String(buf, StandardCharsets.US_ASCII)).isEqualTo("abcdef");
    buf = new byte[32];
    int n = in.read(buf);
    assertThat(new String(buf, 0, n, StandardCharsets.US_ASCII)).isEqualTo("ghij");
    in.end();
    assertThat(in.read(buf)).isEqualTo(-1);
  }

  @Test
  void readingIsPausedAboveTheHighWaterMarkAndResumedBelowTheLowOne() throws Exception {
    byte[] chunk = new byte[64 * 1024];
    for (int i = 0; i < 5; i++) {
      in.offer(chunk);
    }
    assertThat(pauses).containsExactly(true); // 320 KiB waiting, above 256
    byte[] buf = new byte[128 * 1024];
    assertThat(in.read(buf)).isEqualTo(buf.length); // 192 KiB left: still paused
    assertThat(pauses).containsExactly(true);
    assertThat(in.read(buf)).isEqualTo(buf.length); // 64 KiB left: not below the low mark
    assertThat(pauses).containsExactly(true);
    assertThat(in.read(new byte[1])).isEqualTo(1);
    assertThat(pauses).containsExactly(true, false);
  }

  @Test
  void bytesComeOutInTheirOrderThroughOffersAndReadsOfUnevenSizes() throws Exception {
    java.util.Random random = new java.util.Random(42);
    java.io.ByteArrayOutputStream sent = new java.io.ByteArrayOutputStream();
    java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
    byte[] buf = new byte[8 * 1024];
    for (int round = 0; round < 2_000; round++) {
      byte[] chunk = new byte[random.nextInt(6 * 1024)];
      random.nextBytes(chunk);
      sent.write(chunk);
      // a frame's content as the decoder hands it over: a slice with its own reader index
      in.offer(io.netty.buffer.Unpooled.wrappedBuffer(new byte[3], chunk).skipBytes(3));
      if (random.nextInt(3) == 0 || in.available() > 200 * 1024) {
        int n = in.read(buf, 0, 1 + random.nextInt(buf.length - 1));
        got.write(buf, 0, n);
      }
    }
    in.end();
    int n;
    while ((n = in.read(buf)) >= 0) {
      got.write(buf, 0, n);
    }
    assertThat(got.toByteArray()).isEqualTo(sent.toByteArray());
  }

  /**
   * A reader's resume and the event loop's next pause reach the connection in the order they were
   * decided: a pause decided while a resume is still on its way is not overtaken by it.
   */
  @Test
  void aPauseThatFollowsAResumeIsTheLastWordEvenWhileTheResumeIsUnderWay() throws Exception {
    java.util.concurrent.CountDownLatch resuming = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch offering = new java.util.concurrent.CountDownLatch(1);
    List<Boolean> told = new CopyOnWriteArrayList<>();
    InboundBytes slow =
        new InboundBytes(
            pause -> {
              if (!pause) {
                resuming.countDown();
                try { // the connection takes its time to resume; the client sends meanwhile
                  assertThat(offering.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
                } catch (InterruptedException e) {
                  throw new IllegalStateException(e);
                }
              }
              told.add(pause);
            });
    byte[] chunk = new byte[64 * 1024];
    for (int i = 0; i < 5; i++) {
      slow.offer(chunk); // 320 KiB: paused
    }
    Thread reader =
        Thread.ofVirtual()
            .start(
                () -> {
                  try {
                    slow.read(new byte[300 * 1024]); // 20 KiB left: resumes
                  } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                  }
                });
    assertThat(resuming.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    Thread client =
        Thread.ofVirtual()
            .start(
                () -> {
                  offering.countDown();
                  for (int i = 0; i < 5; i++) {
                    slow.offer(chunk); // above the high mark again: pauses
                  }
                });
    reader.join();
    client.join();
    assertThat(told).containsExactly(true, false, true);
  }
}
