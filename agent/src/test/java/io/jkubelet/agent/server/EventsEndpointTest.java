package io.jkubelet.agent.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventList;
import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.TestPods;
import io.jkubelet.agent.events.BroadcastRecorder;
import io.jkubelet.agent.events.EventBroadcaster;
import io.jkubelet.agent.events.EventStore;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.util.ApiSerialization;
import io.jkubelet.agent.util.FakeClock;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code GET /events} on the read-only port, fed by the real recorder, broadcaster and store. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class EventsEndpointTest {
  private final FakeClock clock = new FakeClock();
  private final EventStore store = EventStore.create(clock);
  private final EventBroadcaster broadcaster = EventBroadcaster.create().addWatcher("store", store);
  private final BroadcastRecorder recorder = new BroadcastRecorder(clock, "node1", broadcaster);
  private final HttpClient http = HttpClient.newHttpClient();
  private ReadOnlyServer server;

  private static Pod pod(String ns, String name, String uid) {
    return TestPods.builder(ns, name, uid).build();
  }

  @BeforeEach
  void start() {
    broadcaster.start();
    server = new ReadOnlyServer("127.0.0.1", 0, List::of, Map.of(), store::list, List::of);
    server.start();
    Pod web = pod("ns1", "web", "uid-1");
    recorder.event(Refs.pod(web), EventType.Normal, "Scheduled", "first");
    clock.step(Duration.ofSeconds(5));
    recorder.event(Refs.container(web, "c", false), EventType.Warning, "BackOff", "second");
    recorder.event(Refs.pod(pod("ns2", "db", "uid-2")), EventType.Normal, "Pulled", "third");
    recorder.event(Refs.node("node1"), EventType.Normal, "Starting", "Starting kubelet.");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                store
                        .list(
                            java.util.Optional.empty(),
                            java.util.Optional.empty(),
                            java.util.Optional.empty())
                        .size()
                    == 4);
  }

  @AfterEach
  void stop() {
    server.stop();
    broadcaster.stop();
  }

  private HttpResponse<String> get(String pathAndQuery) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + pathAndQuery))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private EventList list(String pathAndQuery) throws Exception {
    HttpResponse<String> r = get(pathAndQuery);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type")).hasValue("application/json");
    return ApiSerialization.SHARED.unmarshal(r.body(), EventList.class);
  }

  @Test
  void servesAnEventListNewestLast() throws Exception {
    EventList all = list("/events");
    assertThat(all.getApiVersion()).isEqualTo("v1");
    assertThat(all.getKind()).isEqualTo("EventList");
    assertThat(all.getItems())
        .extracting(Event::getMessage)
        .containsExactly("first", "second", "third", "Starting kubelet.");
    assertThat(all.getItems().get(1).getInvolvedObject().getFieldPath())
        .isEqualTo("spec.containers{c}");
  }

  @Test
  void filtersByNamespacePodAndUid() throws Exception {
    assertThat(list("/events?namespace=ns1").getItems())
        .extracting(Event::getMessage)
        .containsExactly("first", "second");
    assertThat(list("/events?namespace=ns1&pod=web").getItems()).hasSize(2);
    assertThat(list("/events?pod=db").getItems())
        .extracting(Event::getMessage)
        .containsExactly("third");
    assertThat(list("/events?uid=uid-2").getItems())
        .extracting(Event::getMessage)
        .containsExactly("third");
    assertThat(list("/events?namespace=default").getItems())
        .extracting(Event::getReason)
        .containsExactly("Starting");
    assertThat(list("/events?namespace=nope").getItems()).isEmpty();
  }

  @Test
  void theOldConstructorServesAnEmptyList() throws Exception {
    ReadOnlyServer plain =
        new ReadOnlyServer(
            "127.0.0.1", 0, List::of, Map.of(), ReadOnlyServer.Events.NONE, List::of);
    plain.start();
    try {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + plain.port() + "/events"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(ApiSerialization.SHARED.unmarshal(r.body(), EventList.class).getItems()).isEmpty();
    } finally {
      plain.stop();
    }
  }
}
