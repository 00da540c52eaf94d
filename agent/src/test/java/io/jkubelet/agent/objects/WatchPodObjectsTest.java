package io.jkubelet.agent.objects;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.jkubelet.agent.TestPods;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class WatchPodObjectsTest {
  /** Watches the test drives: started, stopped, synced and changed by hand. */
  private final Map<ObjectRefs.Ref, FakeWatch> live = new HashMap<>();

  private final List<String> log = new ArrayList<>();

  private final class FakeWatch implements ObjectWatches.Watch {
    final ObjectRefs.Ref ref;
    final Runnable changed;
    volatile boolean synced;
    volatile boolean failed;
    volatile HasMetadata object;

    FakeWatch(ObjectRefs.Ref ref, Runnable changed) {
      this.ref = ref;
      this.changed = changed;
    }

    @Override
    public boolean synced() {
      return synced;
    }

    @Override
    public Optional<HasMetadata> get() {
      return Optional.ofNullable(object);
    }

    @Override
    public boolean failed() {
      return failed;
    }

    @Override
    public void stop() {
      log.add("stop " + ref);
      live.remove(ref);
    }
  }

  private final FakePodObjects gets = new FakePodObjects();
  private final WatchPodObjects objects =
      new WatchPodObjects(
          null,
          (ref, changed) -> {
            log.add("watch " + ref);
            FakeWatch w = new FakeWatch(ref, changed);
            live.put(ref, w);
            return w;
          },
          gets);
  private final List<Set<String>> synced = new CopyOnWriteArrayList<>();

  /** A secret of namespace {@code ns}, without data, for the GETs to find. */
  private void putSecret(String name) {
    gets.put(
        new SecretBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace("ns")
            .endMetadata()
            .build());
  }

  private static Pod pod(String uid, String secret) {
    return TestPods.builder("ns", "p-" + uid, uid)
        .editSpec()
        .addNewVolume()
        .withName("v")
        .withNewSecret()
        .withSecretName(secret)
        .endSecret()
        .endVolume()
        .addNewContainer()
        .withName("c")
        .addNewEnv()
        .withName("X")
        .withNewValueFrom()
        .withNewConfigMapKeyRef("k", "settings", false)
        .endValueFrom()
        .endEnv()
        .endContainer()
        .endSpec()
        .build();
  }

  private static ObjectRefs.Ref secret(String name) {
    return new ObjectRefs.Ref(ObjectRefs.Kind.SECRET, "ns", name);
  }

  @Test
  void oneWatchPerObjectSharedByItsPodsAndStoppedWithTheLast() {
    objects.register(pod("a", "db"));
    objects.register(pod("b", "db"));
    assertThat(live)
        .containsOnlyKeys(
            secret("db"), new ObjectRefs.Ref(ObjectRefs.Kind.CONFIG_MAP, "ns", "settings"));
    assertThat(log).hasSize(2);

    objects.unregister(pod("a", "db"));
    assertThat(live).hasSize(2);
    objects.unregister(pod("b", "db"));
    assertThat(live).isEmpty();
    assertThat(objects.watched()).isZero();
  }

  @Test
  void anUpdateThatNoLongerUsesAnObjectReleasesIt() {
    objects.register(pod("a", "db"));
    objects.register(pod("a", "other"));
    assertThat(live).containsKey(secret("other")).doesNotContainKey(secret("db"));
  }

  @Test
  void aChangeSyncsThePodsThatUseTheObject() {
    objects.onChange(synced::add);
    objects.register(pod("a", "db"));
    objects.register(pod("b", "db"));
    objects.register(pod("c", "other"));

    live.get(secret("db")).changed.run();
    assertThat(synced).containsExactly(Set.of("a", "b"));
  }

  @Test
  void readsAnswerFromASyncedWatchAndFromAGetBefore() throws Exception {
    gets.put(
        new SecretBuilder()
            .withNewMetadata()
            .withName("db")
            .withNamespace("ns")
            .endMetadata()
            .withData(Map.of("k", "Z2V0"))
            .build());
    objects.register(pod("a", "db"));
    assertThat(objects.secret("ns", "db").orElseThrow().getData()).containsEntry("k", "Z2V0");

    FakeWatch w = live.get(secret("db"));
    w.synced = true;
    assertThat(objects.secret("ns", "db")).isEmpty(); // the watch has seen no such secret
    w.object =
        new SecretBuilder()
            .withNewMetadata()
            .withName("db")
            .endMetadata()
            .withData(Map.of("k", "d2F0Y2g="))
            .build();
    assertThat(objects.secret("ns", "db").orElseThrow().getData()).containsEntry("k", "d2F0Y2g=");
  }

  @Test
  void readsOfAnObjectThatOverlapShareOneGetAndItsFailure() throws Exception {
    putSecret("db");
    objects.register(pod("a", "db"));
    CountDownLatch release = new CountDownLatch(1);
    gets.hold = release;
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<Optional<Secret>>> reads = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        reads.add(pool.submit(() -> objects.secret("ns", "db")));
      }
      await().until(() -> gets.secretReads.get() == 1 && objects.getsInFlight() == 1);
      // The four others wait for the one GET (none of them starts its own).
      await().during(Duration.ofMillis(200)).until(() -> gets.secretReads.get() == 1);
      release.countDown();
      for (Future<Optional<Secret>> r : reads) {
        assertThat(r.get().orElseThrow().getMetadata().getName()).isEqualTo("db");
      }
    }
    assertThat(gets.secretReads).hasValue(1);
    assertThat(objects.getsInFlight()).isZero();

    // Later reads GET again; a failure goes to every read that shared the GET.
    gets.unavailable = "API server down";
    CountDownLatch again = new CountDownLatch(1);
    gets.hold = again;
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      Future<Optional<Secret>> first = pool.submit(() -> objects.secret("ns", "db"));
      await().until(() -> objects.getsInFlight() == 1);
      Future<Optional<Secret>> second = pool.submit(() -> objects.secret("ns", "db"));
      again.countDown();
      for (Future<Optional<Secret>> r : List.of(first, second)) {
        assertThatThrownBy(r::get)
            .hasCauseInstanceOf(PodObjects.Unavailable.class)
            .hasMessageContaining("API server down");
      }
    }
  }

  @Test
  void aWatchThatFailedToStartIsStartedAgainOnTheNextReadWhichGetsMeanwhile() throws Exception {
    putSecret("db");
    objects.register(pod("a", "db"));
    FakeWatch first = live.get(secret("db"));
    first.failed = true;

    assertThat(objects.secret("ns", "db")).isPresent();
    assertThat(live.get(secret("db"))).isNotSameAs(first);
    assertThat(log)
        .containsSubsequence("watch secret ns/db", "stop secret ns/db", "watch secret ns/db");
  }

  @Test
  void refsCoverVolumesProjectionsEnvEnvFromAndPullSecrets() {
    Pod p =
        new PodBuilder(pod("a", "db"))
            .editSpec()
            .addNewImagePullSecret("pull")
            .addNewVolume()
            .withName("proj")
            .withNewProjected()
            .addNewSource()
            .withNewConfigMap()
            .withName("kube-root-ca.crt")
            .endConfigMap()
            .endSource()
            .endProjected()
            .endVolume()
            .editFirstContainer()
            .addNewEnvFrom()
            .withNewSecretRef("envs", false)
            .endEnvFrom()
            .endContainer()
            .endSpec()
            .build();
    assertThat(ObjectRefs.of(p))
        .extracting(Object::toString)
        .containsExactlyInAnyOrder(
            "secret ns/pull",
            "secret ns/db",
            "configmap ns/kube-root-ca.crt",
            "secret ns/envs",
            "configmap ns/settings");
  }
}
