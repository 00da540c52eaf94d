package io.jkubelet.agent.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.jkubelet.agent.TestApiServer;
import io.jkubelet.agent.util.Sleeper;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The API sink, through the real recorder and broadcaster, against a real kube-apiserver v1.20
 * ({@code deploy/scripts/k8s-up.sh}; {@code JKUBELET_TEST_KUBECONFIG} names its kubeconfig, and the
 * test fails without it). Each test runs in a namespace of its own.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ApiEventSinkApiTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static KubernetesClient admin;

  private final ScriptedCorrelator correlator = new ScriptedCorrelator();
  private KubernetesClient client;
  private TestApiServer.TestNamespace ns;
  private ApiEventSink sink;
  private EventBroadcaster broadcaster;
  private BroadcastRecorder recorder;
  private Pod pod;

  @BeforeAll
  static void cluster() {
    admin = TestApiServer.adminClient();
  }

  @AfterAll
  static void closeAdmin() {
    if (admin != null) {
      admin.close();
    }
  }

  @BeforeEach
  void setUp() {
    ns = new TestApiServer.TestNamespace(admin, "events");
    pod = ns.createPod("web", "node-events", Map.of(), "c1");
    // The sink writes as the node, which may create and patch events but not read them.
    client = TestApiServer.nodeClient("node-events");
    Clock clock = Clock.systemUTC();
    // A retry would mean the server failed; the test should say so rather than wait 10 s.
    Sleeper noRetries =
        d -> {
          throw new AssertionError(
              "unexpected wait of " + d + " in a test against a healthy server");
        };
    sink =
        new ApiEventSink(
            EventWriter.of(client), correlator, clock, noRetries, new Random(), 50, 100);
    broadcaster = EventBroadcaster.create().addWatcher("api", sink);
    recorder = new BroadcastRecorder(clock, "node-events", broadcaster);
    broadcaster.start();
  }

  @AfterEach
  void tearDown() {
    broadcaster.stop();
    client.close();
    ns.close();
  }

  private List<Event> podEvents() {
    return admin
        .v1()
        .events()
        .inNamespace(ns.name)
        .withField("involvedObject.uid", pod.getMetadata().getUid())
        .list()
        .getItems();
  }

  /** An Update of {@code first}: its name, the given count, now as lastTimestamp. */
  private void answerUpdate(Event first, int count) {
    correlator.answer(
        e -> {
          String now = BroadcastRecorder.rfc3339(Instant.now());
          Event merged =
              new EventBuilder(e)
                  .editMetadata()
                  .withName(first.getMetadata().getName())
                  .endMetadata()
                  .withFirstTimestamp(first.getFirstTimestamp())
                  .withLastTimestamp(now)
                  .withCount(count)
                  .build();
          String patch =
              "{\"count\":"
                  + count
                  + ",\"lastTimestamp\":\""
                  + now
                  + "\",\"message\":\""
                  + e.getMessage()
                  + "\"}";
          return new Correlation.Update(merged, patch);
        });
  }

  @Test
  void createsPatchesAndRecreatesAnEvent() {
    recorder.eventf(
        Refs.container(pod, "c1", false),
        EventType.Warning,
        "BackOff",
        "Back-off restarting %s",
        "c1");

    await().atMost(WAIT).until(() -> podEvents().size() == 1);
    Event first = podEvents().get(0);
    assertThat(first.getCount()).isEqualTo(1);
    assertThat(first.getReason()).isEqualTo("BackOff");
    assertThat(first.getType()).isEqualTo("Warning");
    assertThat(first.getSource().getComponent()).isEqualTo("kubelet");
    assertThat(first.getSource().getHost()).isEqualTo("node-events");
    assertThat(first.getInvolvedObject().getName()).isEqualTo("web");
    assertThat(first.getInvolvedObject().getNamespace()).isEqualTo(ns.name);
    assertThat(first.getInvolvedObject().getFieldPath()).isEqualTo("spec.containers{c1}");
    assertThat(first.getMetadata().getName()).startsWith("web.");
    assertThat(correlator.written()).hasSize(1);

    // A duplicate: the correlator answers Update, and the sink patches count 2.
    answerUpdate(first, 2);
    recorder.eventf(
        Refs.container(pod, "c1", false),
        EventType.Warning,
        "BackOff",
        "Back-off restarting %s",
        "c1");
    await().atMost(WAIT).until(() -> podEvents().get(0).getCount() == 2);
    assertThat(podEvents())
        .singleElement()
        .satisfies(
            e -> assertThat(e.getMetadata().getName()).isEqualTo(first.getMetadata().getName()));
    assertThat(sink.counts()).containsEntry("created", 1L).containsEntry("patched", 1L);

    // The event is deleted (it expired): the next patch answers 404 and the sink creates it again.
    admin.v1().events().inNamespace(ns.name).withName(first.getMetadata().getName()).delete();
    await().atMost(WAIT).until(() -> podEvents().isEmpty());
    answerUpdate(first, 3);
    recorder.eventf(
        Refs.container(pod, "c1", false),
        EventType.Warning,
        "BackOff",
        "Back-off restarting %s",
        "c1");
    await().atMost(WAIT).until(() -> sink.counts().getOrDefault("recreated", 0L) == 1L);
    assertThat(podEvents())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.getMetadata().getName()).isEqualTo(first.getMetadata().getName());
              assertThat(e.getCount()).isEqualTo(3);
            });
    assertThat(correlator.written()).hasSize(3);
    assertThat(broadcaster.dropped().get("api")).isEmpty();
  }

  @Test
  void aRejectedEventIsGivenUpAtOnce() {
    // The same name twice: the second create answers 409 AlreadyExists.
    Event e =
        recorder.make(Occurrence.now(Refs.pod(pod), EventType.Normal, "Pulled", "image pulled"));
    sink.accept(e);
    sink.accept(new EventBuilder(e).build());
    // An involved object in another namespace than the event's: 422 Invalid.
    Event invalid = recorder.make(Occurrence.now(Refs.pod(pod), EventType.Normal, "Pulled", "x"));
    invalid.getInvolvedObject().setNamespace(ns.name + "-other");
    sink.accept(invalid);

    assertThat(sink.counts()).containsEntry("created", 1L).containsEntry("rejected", 2L);
    assertThat(podEvents()).hasSize(1);
  }
}
