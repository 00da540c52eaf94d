package io.jkubelet.agent.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jkubelet.agent.prober.ProbeHttp;
import io.jkubelet.agent.prober.Prober;
import io.jkubelet.agent.server.auth.Attributes;
import io.jkubelet.agent.server.auth.Authenticator;
import io.jkubelet.agent.server.auth.Authorizer;
import io.jkubelet.agent.server.auth.Subject;
import io.jkubelet.agent.testing.PlatformThreads;
import io.jkubelet.agent.util.NettyLoops;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The HTTPS server, its auth filter and routing, over a real TLS connection. */
@Timeout(60)
class KubeletServerTest {
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-03-01T00:00:00Z"), ZoneOffset.UTC);

  @TempDir Path dir;
  private KubeletServer server;
  private final List<Attributes> asked = new CopyOnWriteArrayList<>();
  private final List<Subject> served = new CopyOnWriteArrayList<>();

  private final Route echo =
      new Route() {
        @Override
        public boolean matches(String path) {
          return path.startsWith("/containerLogs/") || path.startsWith("/stats/");
        }

        @Override
        public void handle(ChannelHandlerContext ctx, FullHttpRequest req, Subject subject) {
          served.add(subject);
          ranOn.add(ctx.executor().inEventLoop() ? "loop" : "elsewhere");
          Responses.text(ctx, req, HttpResponseStatus.OK, "hello " + subject.name());
        }
      };

  /** A route that blocks: handled on the thread that authorized its request. */
  private final Route blocking =
      new Route() {
        @Override
        public boolean matches(String path) {
          return path.equals("/metrics");
        }

        @Override
        public boolean blocking() {
          return true;
        }

        @Override
        public void handle(ChannelHandlerContext ctx, FullHttpRequest req, Subject subject) {
          ranOn.add(
              ctx.executor().inEventLoop()
                  ? "loop"
                  : Thread.currentThread().isVirtual() ? "virtual" : "platform");
          Responses.text(ctx, req, HttpResponseStatus.OK, "made for " + subject.name());
        }
      };

  private final List<String> ranOn = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop();
    }
  }

  private ServingCerts start(TestPki ca, boolean anonymous, Authorizer authz) throws Exception {
    ServingCerts certs = ServingCerts.selfSigned(dir.resolve("pki"), "node-a", List.of(), CLOCK);
    server =
        new KubeletServer(
            new ServerOptions(
                "127.0.0.1",
                0,
                certs,
                ca == null ? List.of() : List.of(ca.ca),
                "node-a",
                null,
                TlsPolicy.DEFAULT),
            new Authenticator(
                anonymous,
                Optional.of(
                    t ->
                        t.equals("good")
                            ? Optional.of(new Subject("bob", List.of("devs")))
                            : Optional.empty())),
            (s, a) -> {
              asked.add(a);
              return authz.allowed(s, a);
            },
            List.of(echo, blocking));
    server.start();
    return certs;
  }

  private HttpResponse<String> get(
      ServingCerts certs, TestPki.Client client, String path, String token) throws Exception {
    HttpClient http =
        HttpClient.newBuilder()
            .sslContext(TestPki.clientContext(client, certs.chain().get(0)))
            .build();
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("https://localhost:" + server.port() + path));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    try (http) {
      return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
  }

  @Test
  void anonymousAllowedIsSystemAnonymousAndUnknownPathsAre404() throws Exception {
    ServingCerts certs = start(null, true, Authorizer.ALWAYS_ALLOW);
    HttpResponse<String> res = get(certs, null, "/containerLogs/ns/p/c?follow=true", null);
    assertThat(res.statusCode()).isEqualTo(200);
    assertThat(res.body()).isEqualTo("hello system:anonymous");
    assertThat(get(certs, null, "/nothing", null).statusCode()).isEqualTo(404);
    assertThat(get(certs, null, "/nothing", null).body()).isEqualTo("404 page not found");
  }

  @Test
  void aRouteIsHandledOnTheLoopUnlessItBlocks() throws Exception {
    ServingCerts certs = start(null, true, Authorizer.ALWAYS_ALLOW);
    assertThat(get(certs, null, "/stats/summary", null).body()).isEqualTo("hello system:anonymous");
    assertThat(get(certs, null, "/metrics", null).body()).isEqualTo("made for system:anonymous");
    assertThat(ranOn).containsExactly("loop", "virtual");
  }

  @Test
  void anonymousRefusedIs401WithNothingMore() throws Exception {
    ServingCerts certs = start(null, false, Authorizer.ALWAYS_ALLOW);
    HttpResponse<String> res = get(certs, null, "/containerLogs/ns/p/c", null);
    assertThat(res.statusCode()).isEqualTo(401);
    assertThat(res.body()).isEqualTo("Unauthorized");
    assertThat(served).isEmpty();
  }

  @Test
  void bearerTokensAreReviewedAndABadOneIsNeverAnonymous() throws Exception {
    ServingCerts certs = start(null, true, Authorizer.ALWAYS_ALLOW);
    assertThat(get(certs, null, "/stats/summary", "good").body()).isEqualTo("hello bob");
    assertThat(served.get(0).groups()).containsExactly("devs", "system:authenticated");
    assertThat(get(certs, null, "/stats/summary", "bad").statusCode()).isEqualTo(401);
  }

  @Test
  void clientCertificatesOfTheClientCaAuthenticateByCnAndO() throws Exception {
    TestPki ca = new TestPki("test-ca");
    ServingCerts certs = start(ca, false, Authorizer.ALWAYS_ALLOW);
    HttpResponse<String> res =
        get(
            certs,
            ca.client("CN=kube-apiserver-kubelet-client,O=system:masters"),
            "/stats/summary",
            null);
    assertThat(res.body()).isEqualTo("hello kube-apiserver-kubelet-client");
    assertThat(served.get(0).groups()).containsExactly("system:masters", "system:authenticated");
  }

  @Test
  void aClientCertificateOfAnotherCaIsRefusedAlsoAfterOneOfTheCaWasAccepted() throws Exception {
    TestPki ca = new TestPki("test-ca");
    ServingCerts certs = start(ca, false, Authorizer.ALWAYS_ALLOW);
    TestPki.Client alice = ca.client("CN=alice,O=system:masters");
    assertThat(get(certs, alice, "/stats/summary", null).body()).isEqualTo("hello alice");
    // The same names, signed by another key: refused in the handshake, as upstream's server does.
    TestPki.Client forged = new TestPki("test-ca").client("CN=alice,O=system:masters");
    assertThatThrownBy(() -> get(certs, forged, "/stats/summary", null))
        .isInstanceOf(IOException.class);
    assertThat(get(certs, alice, "/stats/summary", null).body()).isEqualTo("hello alice");
    assertThat(served).hasSize(2);
  }

  @Test
  void forbiddenNamesUserVerbAndSubresourceAsUpstream() throws Exception {
    ServingCerts certs = start(null, true, (s, a) -> false);
    HttpResponse<String> res = get(certs, null, "/containerLogs/ns/p/c", null);
    assertThat(res.statusCode()).isEqualTo(403);
    assertThat(res.body())
        .isEqualTo(
            "Forbidden (user=system:anonymous, verb=get, resource=nodes, subresource=proxy)");
    assertThat(asked)
        .containsExactly(
            new Attributes("get", "nodes", "proxy", "node-a", "/containerLogs/ns/p/c"));
    assertThat(served).isEmpty();
  }

  @Test
  void serversAndTheProbeClientShareTheProcesssTwoLoops() throws Exception {
    ServingCerts certs = start(null, true, Authorizer.ALWAYS_ALLOW);
    KubeletServer other =
        new KubeletServer(
            ServerOptions.plain("127.0.0.1", 0, "node-a"),
            new Authenticator(true, Optional.empty()),
            Authorizer.ALWAYS_ALLOW,
            List.of(echo));
    other.start();
    ProbeHttp probes = new ProbeHttp(1024);
    probes.start();
    ProbeHttp.Response answer =
        probes.get(
            new ProbeHttp.Request(
                Prober.Scheme.HTTP, "127.0.0.1", other.port(), "/stats/summary", List.of()),
            Duration.ofSeconds(10));
    assertThat(answer.body()).isEqualTo("hello system:anonymous");
    List<String> loops =
        PlatformThreads.named(
            n -> n.startsWith("netty-io") || n.contains("server-io") || n.contains("prober"));
    assertThat(loops)
        .allMatch(n -> n.startsWith("netty-io"))
        .hasSizeLessThanOrEqualTo(NettyLoops.THREADS);
    // Stopping one user leaves the loops to the others.
    other.stop();
    probes.stop();
    assertThat(get(certs, null, "/stats/summary", null).body()).isEqualTo("hello system:anonymous");
  }

  @Test
  void theSelfSignedCertificateIsKeptAndReused() throws Exception {
    ServingCerts first = ServingCerts.selfSigned(dir, "node-a", List.of("10.0.0.5"), CLOCK);
    ServingCerts again = ServingCerts.selfSigned(dir, "node-a", List.of("10.0.0.5"), CLOCK);
    assertThat(again.chain()).isEqualTo(first.chain());
    assertThat(dir.resolve("kubelet.crt")).exists();
    assertThat(dir.resolve("kubelet.key")).exists();
    assertThat(first.chain().get(0).getSubjectAlternativeNames().toString())
        .contains("node-a", "localhost", "10.0.0.5", "127.0.0.1");
  }
}
