package io.jkubelet.agent.volume;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ServiceAccountTokenProjection;
import io.fabric8.kubernetes.api.model.ServiceAccountTokenProjectionBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.jkubelet.agent.TestPods;
import io.jkubelet.agent.util.FakeClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class TokenManagerTest {
  private final FakeClock clock = new FakeClock();
  private final List<TokenRequest> asked = new CopyOnWriteArrayList<>();
  private volatile String failure;

  /** The API server's answer: a token numbered by the request, valid for what was asked. */
  private final TokenSource source =
      (ns, sa, tr) -> {
        if (failure != null) {
          throw new IllegalStateException(failure);
        }
        asked.add(tr);
        long seconds = tr.getSpec().getExpirationSeconds();
        return new TokenRequestBuilder(tr)
            .withNewStatus()
            .withToken(ns + "/" + sa + "#" + asked.size())
            .withExpirationTimestamp(clock.instant().plusSeconds(seconds).toString())
            .endStatus()
            .build();
      };

  private final TokenManager tokens = new TokenManager(source, clock);

  private static Pod pod() {
    return TestPods.builder("ns", "p", "uid-1")
        .editSpec()
        .withServiceAccountName("robot")
        .endSpec()
        .build();
  }

  private static ServiceAccountTokenProjection projection(Long seconds) {
    return new ServiceAccountTokenProjectionBuilder()
        .withPath("token")
        .withAudience("vault")
        .withExpirationSeconds(seconds)
        .build();
  }

  @Test
  void asksWithTheAudienceExpiryAndThePodBinding() throws Exception {
    assertThat(tokens.token(pod(), projection(600L))).isEqualTo("ns/robot#1");

    var spec = asked.get(0).getSpec();
    assertThat(spec.getAudiences()).containsExactly("vault");
    assertThat(spec.getExpirationSeconds()).isEqualTo(600L);
    assertThat(spec.getBoundObjectRef().getKind()).isEqualTo("Pod");
    assertThat(spec.getBoundObjectRef().getName()).isEqualTo("p");
    assertThat(spec.getBoundObjectRef().getUid()).isEqualTo("uid-1");
  }

  @Test
  void refreshesOnce80PercentOfTheLifetimePassed() throws Exception {
    tokens.token(pod(), projection(1000L));
    clock.step(Duration.ofSeconds(799));
    assertThat(tokens.token(pod(), projection(1000L))).isEqualTo("ns/robot#1");

    clock.step(Duration.ofSeconds(2));
    assertThat(tokens.token(pod(), projection(1000L))).isEqualTo("ns/robot#2");
  }

  @Test
  void refreshesAfter24HoursEvenWhenItLivesLonger() throws Exception {
    long week = Duration.ofDays(7).toSeconds();
    tokens.token(pod(), projection(week));
    clock.step(Duration.ofHours(24).minusSeconds(1));
    assertThat(tokens.token(pod(), projection(week))).isEqualTo("ns/robot#1");

    clock.step(Duration.ofSeconds(2));
    assertThat(tokens.token(pod(), projection(week))).isEqualTo("ns/robot#2");
  }

  @Test
  void theDefaultExpiryIsAnHour() throws Exception {
    tokens.token(pod(), projection(null));
    assertThat(asked.get(0).getSpec().getExpirationSeconds()).isEqualTo(3600L);
  }

  @Test
  void servesTheCachedTokenWhileTheApiServerIsAwayUntilItExpires() throws Exception {
    tokens.token(pod(), projection(1000L));
    failure = "connection refused";
    clock.step(Duration.ofSeconds(900));
    assertThat(tokens.token(pod(), projection(1000L))).isEqualTo("ns/robot#1");

    clock.step(Duration.ofSeconds(100));
    assertThatThrownBy(() -> tokens.token(pod(), projection(1000L)))
        .hasMessage("failed to fetch token: connection refused");
  }

  @Test
  void forgetsThePodsTokens() throws Exception {
    tokens.token(pod(), projection(1000L));
    tokens.forget("uid-1");
    assertThat(tokens.size()).isZero();
    tokens.token(pod(), projection(1000L));
    assertThat(asked).hasSize(2);
  }
}
