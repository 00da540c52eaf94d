package io.jkubelet.agent.certificates;

import static org.assertj.core.api.Assertions.assertThat;

import io.jkubelet.agent.certificates.SigningRequests.ApiException;
import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.agent.util.FakeSchedulers;
import io.jkubelet.agent.util.Time;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.DoubleSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Rotation on fake schedulers and a fake clock, against the fake CSR API. */
class RotatingCertificateManagerTest {
  private static final Duration LIFETIME = Duration.ofHours(100);
  @TempDir Path certDir;
  private final FakeClock clock = new FakeClock();
  private final FakeSchedulers schedulers = new FakeSchedulers(clock);
  private final Time time = new Time(clock, d -> clock.step(d), schedulers);
  private final FakeSigningRequests api = new FakeSigningRequests(clock);
  private final FakeSigningClients clients = new FakeSigningClients(api);
  private final RecordingListener events = new RecordingListener();
  private final TestCa ca = new TestCa();
  private final List<ClientCertificate> rotated = new CopyOnWriteArrayList<>();
  private Path bootstrap = null;

  private RotatingCertificateManager manager(DoubleSupplier random) {
    var m =
        RotatingCertificateManager.client(
            CertificateOptions.of(certDir.resolve("kubelet.conf"), bootstrap, certDir, true, false),
            "n1",
            clients,
            time,
            events,
            random);
    m.onRotated(rotated::add);
    return m;
  }

  /** The signer approves at once and issues a {@link #LIFETIME} certificate, backdated 5 min. */
  private void signerIssues() {
    api.onCreate(
        c -> {
          api.approve(c.name());
          Instant from = clock.instant().minus(Duration.ofMinutes(5));
          api.issue(c.name(), ca.issue(c.requestPem(), from, from.plus(LIFETIME)));
        });
  }

  private ClientCertificate stored(Instant notBefore, Duration lifetime) {
    ClientCertificate c = ca.node("n1", notBefore, notBefore.plus(lifetime));
    return CertificateStore.files(certDir, "kubelet-client", clock).update(c);
  }

  @Test
  void theDeadlineIsUniformlyBetween70And90PercentOfTheLifetime() {
    ClientCertificate c = ca.node("n1", clock.instant(), clock.instant().plus(LIFETIME));
    assertThat(RotationDeadline.at(c, () -> 0.0))
        .isEqualTo(c.notBefore().plus(Duration.ofHours(70)));
    assertThat(RotationDeadline.at(c, () -> 1.0))
        .isEqualTo(c.notBefore().plus(Duration.ofHours(90)));
    Random random = new Random(42);
    List<Double> fractions = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      Instant d = RotationDeadline.at(c, random::nextDouble);
      fractions.add(Duration.between(c.notBefore(), d).toSeconds() / (double) LIFETIME.toSeconds());
    }
    assertThat(fractions).allSatisfy(f -> assertThat(f).isBetween(0.7, 0.9));
    long lowHalf = fractions.stream().filter(f -> f < 0.8).count();
    assertThat(lowHalf).isBetween(900L, 1100L);
  }

  @Test
  void theCertificateIsRenewedAsTheNodeAtItsDeadline() {
    ClientCertificate old = stored(clock.instant(), LIFETIME);
    signerIssues();
    var m = manager(() -> 0.5); // deadline at 80 %: 80 h
    m.start();
    assertThat(m.current().orElseThrow().serial()).isEqualTo(old.serial());

    schedulers.advance(Duration.ofHours(80).minusSeconds(1));
    assertThat(api.creates()).isZero();
    schedulers.advance(Duration.ofSeconds(1));

    assertThat(api.creates()).isEqualTo(1);
    assertThat(clients.opened).containsExactly("node " + old.serial().toString(16));
    ClientCertificate now = m.current().orElseThrow();
    assertThat(now.serial()).isNotEqualTo(old.serial());
    assertThat(now.key().getEncoded()).isNotEqualTo(old.key().getEncoded());
    assertThat(rotated).containsExactly(now);
    assertThat(events.reasons()).endsWith(CertificateEvent.ROTATED);
    assertThat(
            CertificateStore.files(certDir, "kubelet-client", clock)
                .current()
                .orElseThrow()
                .serial())
        .isEqualTo(now.serial());
    assertThat(m.healthy().ok()).isTrue();
    m.stop();
  }

  @Test
  void aNodeWithoutACertificateRequestsOneAtStartWithTheBootstrapCredentials() {
    bootstrap = certDir.resolve("bootstrap.conf");
    signerIssues();
    var m = manager(() -> 0.5);
    m.start();
    assertThat(m.current()).isEmpty();
    assertThat(m.healthy().ok()).isFalse();

    schedulers.runDue();

    assertThat(clients.opened).containsExactly("bootstrap " + bootstrap);
    assertThat(m.current()).isPresent();
    m.stop();
  }

  @Test
  void anExpiredCertificateFallsBackToTheBootstrapCredentials() {
    bootstrap = certDir.resolve("bootstrap.conf");
    stored(clock.instant().minus(Duration.ofDays(10)), Duration.ofDays(1));
    signerIssues();
    var m = manager(() -> 0.5);
    m.start();

    schedulers.runDue();

    assertThat(clients.opened).hasSize(1).allMatch(s -> s.startsWith("bootstrap "));
    assertThat(m.current()).isPresent();
    m.stop();
  }

  @Test
  void failuresAreRetriedWithADoublingDelay() {
    stored(clock.instant(), LIFETIME);
    api.failCreate(new ApiException(500, "etcd is down"));
    var m = manager(() -> 0.0); // no jitter: 2 s, 4 s, 8 s...
    m.start();
    schedulers.advance(Duration.ofHours(70));
    assertThat(api.creates()).isEqualTo(1);

    schedulers.advance(Duration.ofSeconds(2));
    assertThat(api.creates()).isEqualTo(2);
    schedulers.advance(Duration.ofSeconds(3));
    assertThat(api.creates()).isEqualTo(2);
    schedulers.advance(Duration.ofSeconds(1));
    assertThat(api.creates()).isEqualTo(3);
    schedulers.advance(Duration.ofSeconds(8));
    assertThat(api.creates()).isEqualTo(4);
    assertThat(events.reasons()).containsOnly(CertificateEvent.REQUEST_FAILED);

    api.failCreate(null);
    signerIssues();
    schedulers.advance(Duration.ofSeconds(16));
    assertThat(api.creates()).isEqualTo(5);
    assertThat(rotated).hasSize(1);
    m.stop();
  }

  @Test
  void aTimedOutRequestIsWaitedOnAgainNotFiledAgain() {
    stored(clock.instant(), LIFETIME);
    var m = manager(() -> 0.0);
    m.start();
    schedulers.advance(Duration.ofHours(70)); // files a CSR, nobody approves: 15 min timeout
    assertThat(api.all()).hasSize(1);

    schedulers.advance(Duration.ofSeconds(2));

    assertThat(api.all()).as("the retry finds its pending CSR").hasSize(1);
    assertThat(api.calls()).filteredOn(c -> c.startsWith("create")).hasSize(2);
    m.stop();
  }

  @Test
  void aDeniedRequestGetsANewKeyAndName() {
    stored(clock.instant(), LIFETIME);
    api.onCreate(c -> api.deny(c.name(), "Nope", "denied by test"));
    var m = manager(() -> 0.0);
    m.start();
    schedulers.advance(Duration.ofHours(70));
    schedulers.advance(Duration.ofSeconds(2));

    assertThat(api.all()).hasSize(2);
    assertThat(api.all().get(0).name()).isNotEqualTo(api.all().get(1).name());
    m.stop();
  }

  @Test
  void stopEndsRotation() {
    stored(clock.instant(), LIFETIME);
    signerIssues();
    var m = manager(() -> 0.0);
    m.start();
    m.stop();

    schedulers.advance(Duration.ofHours(90));

    assertThat(api.creates()).isZero();
    assertThat(m.healthy().ok()).isFalse();
  }
}
