package io.jkubelet.agent.logs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.jkubelet.agent.TestPods;
import io.jkubelet.agent.runtime.LogRequest;
import io.jkubelet.agent.runtime.LogSink;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.server.KubeletServer;
import io.jkubelet.agent.server.ServerOptions;
import io.jkubelet.agent.server.ServingCerts;
import io.jkubelet.agent.server.TlsPolicy;
import io.jkubelet.agent.server.auth.Authenticator;
import io.jkubelet.agent.server.auth.Authorizer;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * /containerLogs over real HTTPS against a runtime stub: upstream's errors, limitBytes, a client
 * that drops a followed stream, and a thousand requests that leave the thread count as it was.
 */
@Timeout(120)
class ContainerLogsRouteTest {
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-03-01T00:00:00Z"), ZoneOffset.UTC);
  private static final String UID = "uid-1";

  @TempDir Path dir;
  private KubeletServer server;
  private ExecutorService readers;
  private final AtomicInteger opened = new AtomicInteger();
  private final AtomicInteger closed = new AtomicInteger();
  private final List<LogRequest> requests = new CopyOnWriteArrayList<>();

  private final Pod pod =
      TestPods.builder("ns", "web", UID)
          .editSpec()
          .addNewContainer()
          .withName("app")
          .endContainer()
          .endSpec()
          .build();
  private final PodStatus status =
      new PodStatusBuilder()
          .addNewContainerStatus()
          .withName("app")
          .withContainerID("docker://c1")
          .withNewState()
          .withNewRunning()
          .endRunning()
          .endState()
          .endContainerStatus()
          .build();

  /** Output "hello\n" then ends, or (follow) keeps the stream open until closed. */
  private Runtime runtime() {
    return (Runtime)
        Proxy.newProxyInstance(
            Runtime.class.getClassLoader(),
            new Class<?>[] {Runtime.class},
            (proxy, method, args) -> {
              if (!method.getName().equals("containerLogs")) {
                throw new UnsupportedOperationException(method.getName());
              }
              LogRequest r = (LogRequest) args[1];
              LogSink sink = (LogSink) args[2];
              requests.add(r);
              opened.incrementAndGet();
              sink.output("hello\n".getBytes(StandardCharsets.UTF_8));
              if (!r.follow()) {
                sink.end(null);
              }
              return (AutoCloseable) closed::incrementAndGet;
            });
  }

  @BeforeEach
  void start() throws Exception {
    readers = Executors.newVirtualThreadPerTaskExecutor();
    server =
        new KubeletServer(
            new ServerOptions(
                "127.0.0.1",
                0,
                ServingCerts.selfSigned(dir, "node-a", List.of(), CLOCK),
                List.of(),
                "node-a",
                null,
                TlsPolicy.DEFAULT),
            new Authenticator(true, Optional.empty()),
            Authorizer.ALWAYS_ALLOW,
            List.of(
                new ContainerLogsRoute(
                    () -> List.of(pod),
                    uid -> uid.equals(UID) ? Optional.of(status) : Optional.empty(),
                    runtime(),
                    CLOCK,
                    readers)));
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop();
    readers.shutdownNow();
  }

  private static SSLContext trustAll() throws Exception {
    return io.jkubelet.agent.testing.TrustAll.context();
  }

  private HttpResponse<String> get(HttpClient http, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + server.port() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void unknownPodsContainersAndInstancesGetUpstreamsMessages() throws Exception {
    try (HttpClient http = HttpClient.newBuilder().sslContext(trustAll()).build()) {
      HttpResponse<String> r = get(http, "/containerLogs/ns/nope/app");
      assertThat(r.statusCode()).isEqualTo(404);
      assertThat(r.body()).isEqualTo("pod \"nope\" does not exist");
      r = get(http, "/containerLogs/ns/web/nope");
      assertThat(r.statusCode()).isEqualTo(404);
      assertThat(r.body()).isEqualTo("container \"nope\" not found in pod \"web\"");
      r = get(http, "/containerLogs/ns/web/app?previous=true");
      assertThat(r.statusCode()).isEqualTo(400);
      assertThat(r.body())
          .isEqualTo("previous terminated container \"app\" in pod \"web\" not found");
      r = get(http, "/containerLogs/ns/web/app?tailLines=-1");
      assertThat(r.statusCode()).isEqualTo(422);
      assertThat(opened).as("no runtime stream opened for a bad request").hasValue(0);
    }
  }

  @Test
  void theOutputIsServedAndLimitBytesCutsIt() throws Exception {
    try (HttpClient http = HttpClient.newBuilder().sslContext(trustAll()).build()) {
      HttpResponse<String> r = get(http, "/containerLogs/ns/web/app?tailLines=3&timestamps=true");
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.body()).isEqualTo("hello\n");
      assertThat(requests.get(0).tailLines()).hasValue(3);
      assertThat(requests.get(0).timestamps()).isTrue();
      assertThat(get(http, "/containerLogs/ns/web/app?limitBytes=3").body()).isEqualTo("hel");
    }
  }

  @Test
  void aClientThatDropsAFollowedStreamClosesTheRuntimesStream() throws Exception {
    try (SSLSocket s =
        (SSLSocket) trustAll().getSocketFactory().createSocket("127.0.0.1", server.port())) {
      OutputStream out = s.getOutputStream();
      out.write(
          ("GET /containerLogs/ns/web/app?follow=true HTTP/1.1\r\nHost: x\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      StringBuilder got = new StringBuilder();
      while (!got.toString().contains("hello")) {
        got.append((char) in.read());
      }
      assertThat(closed).as("still following").hasValue(0);
    }
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(closed).hasValue(1));
  }

  @Test
  void aThousandRequestsLeaveTheThreadCountAndOpenStreamsWhereTheyWere() throws Exception {
    try (HttpClient http = HttpClient.newBuilder().sslContext(trustAll()).build()) {
      for (int i = 0; i < 50; i++) {
        get(http, "/containerLogs/ns/web/app");
      }
      int before = Thread.activeCount();
      for (int i = 0; i < 1000; i++) {
        assertThat(get(http, "/containerLogs/ns/web/app").body()).isEqualTo("hello\n");
      }
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(() -> assertThat(closed.get()).isEqualTo(opened.get()));
      assertThat(Thread.activeCount()).isLessThanOrEqualTo(before + 2);
    }
  }
}
