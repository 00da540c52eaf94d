package io.jkubelet.agent.bench;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.jkubelet.agent.events.Correlation;
import io.jkubelet.agent.events.CorrelatorOptions;
import io.jkubelet.agent.events.EventCorrelator;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Events per second through {@link EventCorrelator#correlate}, one thread, 10,000 distinct pods
 * (more than the 4096-entry LRUs hold, so the caches churn). The mix, per event: 80 % a repeat of
 * one of a pod's Normal events (Pulled/Created/Started/Killing of one of 3 containers), 10 % a
 * Warning (BackOff or Unhealthy), 10 % a Normal event with a distinct message (probe output, which
 * drives aggregation). The clock advances 1 ms per event, so the spam buckets refill a little and
 * the aggregation window slides. Run by deploy/scripts/bench-events.sh.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Threads(1)
public class CorrelatorBench {
  private static final int OBJECTS = 10_000;
  private static final int EVENTS = 1 << 18;

  private Event[] events;
  private StepClock clock;
  private EventCorrelator correlator;
  private int next;

  @Setup
  public void setUp() {
    SplittableRandom random = new SplittableRandom(42);
    ObjectReference[][] refs = new ObjectReference[OBJECTS][3];
    for (int p = 0; p < OBJECTS; p++) {
      for (int c = 0; c < 3; c++) {
        refs[p][c] =
            new ObjectReferenceBuilder()
                .withApiVersion("v1")
                .withKind("Pod")
                .withNamespace("ns" + (p % 20))
                .withName("pod-" + p)
                .withUid("uid-" + p)
                .withFieldPath("spec.containers{c" + c + "}")
                .build();
      }
    }
    String[] normal = {"Pulled", "Created", "Started", "Killing"};
    events = new Event[EVENTS];
    for (int i = 0; i < EVENTS; i++) {
      int p = random.nextInt(OBJECTS);
      int c = random.nextInt(3);
      int kind = random.nextInt(10);
      String type;
      String reason;
      String message;
      if (kind < 8) {
        type = "Normal";
        reason = normal[random.nextInt(normal.length)];
        message = reason + " container c" + c;
      } else if (kind == 8) {
        type = "Warning";
        reason = random.nextBoolean() ? "BackOff" : "Unhealthy";
        message =
            reason.equals("BackOff") ? "Back-off restarting failed container" : "probe failed";
      } else {
        type = "Normal";
        reason = "Pulling";
        message = "Pulling image \"busybox:" + random.nextInt(1_000_000) + "\"";
      }
      events[i] =
          new EventBuilder()
              .withNewMetadata()
              .withName("pod-" + p + "." + Long.toHexString(random.nextLong()))
              .withNamespace(refs[p][c].getNamespace())
              .endMetadata()
              .withInvolvedObject(refs[p][c])
              .withType(type)
              .withReason(reason)
              .withMessage(message)
              .withNewSource()
              .withComponent("kubelet")
              .withHost("node1")
              .endSource()
              .withFirstTimestamp("2026-01-01T00:00:00Z")
              .withLastTimestamp("2026-01-01T00:00:00Z")
              .withCount(1)
              .withReportingComponent("kubelet")
              .withReportingInstance("node1")
              .build();
    }
    clock = new StepClock();
    correlator = new EventCorrelator(clock, CorrelatorOptions.defaults());
  }

  @Benchmark
  public Correlation correlate() {
    clock.nanos += 1_000_000;
    Event e = events[next];
    next = (next + 1) & (EVENTS - 1);
    return correlator.correlate(e);
  }

  /** A clock the benchmark steps by hand, so time costs nothing and runs the same every time. */
  static final class StepClock extends Clock {
    long nanos = Instant.parse("2026-01-01T00:00:00Z").getEpochSecond() * 1_000_000_000L;

    @Override
    public Instant instant() {
      return Instant.ofEpochSecond(0, nanos);
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }
  }
}
