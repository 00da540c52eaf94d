package io.jkubelet.agent.volume;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.jkubelet.agent.TestPods;
import io.jkubelet.agent.env.NodeAllocatable;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.objects.FakePodObjects;
import io.jkubelet.agent.util.FakeClock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VolumesTest {
  @TempDir Path root;
  private final FakeClock clock = new FakeClock();
  private final FakePodObjects objects = new FakePodObjects();
  private final FakeMounter mounter = new FakeMounter();
  private final List<String> events = new CopyOnWriteArrayList<>();
  private final EventRecorder recorder =
      (o, t, reason, msg) -> events.add(t + " " + reason + ": " + msg);
  private final TokenSource tokens =
      (ns, sa, tr) ->
          new TokenRequestBuilder(tr)
              .withNewStatus()
              .withToken("token-of-" + sa)
              .withExpirationTimestamp(clock.instant().plusSeconds(3600).toString())
              .endStatus()
              .build();

  private VolumeManager volumes() {
    return VolumeManager.create(
        new VolumeManager.Options(
            root,
            objects,
            tokens,
            mounter,
            recorder,
            clock,
            new NodeAllocatable(2000, 1L << 30, 1L << 34)));
  }

  private static Pod pod(Volume... volumes) {
    return TestPods.builder("ns", "p", "uid1")
        .editMetadata()
        .withLabels(Map.of("app", "web"))
        .endMetadata()
        .editSpec()
        .withVolumes(volumes)
        .addNewContainer()
        .withName("c")
        .withImage("busybox")
        .endContainer()
        .endSpec()
        .build();
  }

  private void secret(String name, Map<String, String> data) {
    var b64 = new java.util.HashMap<String, String>();
    data.forEach(
        (k, v) ->
            b64.put(k, Base64.getEncoder().encodeToString(v.getBytes(StandardCharsets.UTF_8))));
    objects.put(
        new SecretBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace("ns")
            .endMetadata()
            .withData(b64)
            .build());
  }

  private static Volume secretVolume(String name, String secret, Boolean optional) {
    return new VolumeBuilder()
        .withName(name)
        .withNewSecret()
        .withSecretName(secret)
        .withOptional(optional)
        .endSecret()
        .build();
  }

  @Test
  void aSecretVolumeIsATmpfsUnderThePluginDirWithTheDefaultMode() throws Exception {
    secret("db", Map.of("password", "hunter2"));
    Map<String, Path> paths = volumes().setUp(pod(secretVolume("creds", "db", null)));

    Path dir = root.resolve("pods/uid1/volumes/kubernetes.io~secret/creds");
    assertThat(paths).containsEntry("creds", dir);
    assertThat(mounter.mounts).containsKey(dir);
    assertThat(Files.readString(dir.resolve("password"))).isEqualTo("hunter2");
    assertThat(AtomicWriterTest.mode(dir.resolve("..data/password"))).isEqualTo(0644);
  }

  @Test
  void aMissingRequiredSecretFailsWithUpstreamsMessageAndCreatesNothing() {
    assertThatThrownBy(() -> volumes().setUp(pod(secretVolume("creds", "db", null))))
        .isInstanceOf(MountFailure.class)
        .hasMessage("secret \"db\" not found");
    assertThat(events)
        .containsExactly(
            "Warning FailedMount: MountVolume.SetUp failed for volume \"creds\" : secret \"db\" not found");
    assertThat(mounter.mounts).isEmpty();
  }

  @Test
  void aMissingOptionalSecretIsAnEmptyVolume() throws Exception {
    Path dir = volumes().setUp(pod(secretVolume("creds", "db", true))).get("creds");
    try (var s = Files.list(dir)) {
      assertThat(s.map(p -> p.getFileName().toString()).filter(n -> !n.startsWith(".."))).isEmpty();
    }
    assertThat(events).isEmpty();
  }

  @Test
  void anUpdateReachesTheFilesAndADeletedSecretKeepsThemWithAWarning() throws Exception {
    VolumeManager v = volumes();
    Pod pod = pod(secretVolume("creds", "db", null));
    secret("db", Map.of("password", "one"));
    Path dir = v.setUp(pod).get("creds");

    secret("db", Map.of("password", "two"));
    clock.step(Duration.ofSeconds(1));
    v.setUp(pod);
    assertThat(Files.readString(dir.resolve("password"))).isEqualTo("two");

    objects.secrets.clear();
    v.setUp(pod);
    assertThat(Files.readString(dir.resolve("password"))).isEqualTo("two");
    assertThat(events)
        .anyMatch(e -> e.startsWith("Warning FailedMount") && e.contains("not found"));
  }

  @Test
  void aTmpfsThatCannotBeMountedFailsTheVolumeAndWritesNothingToDisk() {
    secret("db", Map.of("password", "hunter2"));
    mounter.refuse = "mount: only root can do that";
    assertThatThrownBy(() -> volumes().setUp(pod(secretVolume("creds", "db", null))))
        .hasMessageContaining("cannot mount a tmpfs")
        .hasMessageContaining("only root can do that");
    assertThat(root.resolve("pods/uid1/volumes/kubernetes.io~secret/creds/password"))
        .doesNotExist();
  }

  @Test
  void aConfigMapVolumeIsOnDiskWithItsItems() throws Exception {
    objects.put(
        new ConfigMapBuilder()
            .withNewMetadata()
            .withName("cfg")
            .withNamespace("ns")
            .endMetadata()
            .withData(Map.of("a", "1", "b", "2"))
            .build());
    Volume vol =
        new VolumeBuilder()
            .withName("conf")
            .withNewConfigMap()
            .withName("cfg")
            .addNewItem()
            .withKey("a")
            .withPath("sub/a.txt")
            .withMode(0400)
            .endItem()
            .endConfigMap()
            .build();
    Path dir = volumes().setUp(pod(vol)).get("conf");

    assertThat(dir).isEqualTo(root.resolve("pods/uid1/volumes/kubernetes.io~configmap/conf"));
    assertThat(mounter.mounts).isEmpty();
    assertThat(Files.readString(dir.resolve("sub/a.txt"))).isEqualTo("1");
    assertThat(dir.resolve("b")).doesNotExist();
  }

  @Test
  void aProjectedVolumeAggregatesSourcesWithTheToken() throws Exception {
    secret("db", Map.of("password", "pw"));
    objects.put(
        new ConfigMapBuilder()
            .withNewMetadata()
            .withName("kube-root-ca.crt")
            .withNamespace("ns")
            .endMetadata()
            .withData(Map.of("ca.crt", "CA"))
            .build());
    Volume vol =
        new VolumeBuilder()
            .withName("kube-api-access")
            .withNewProjected()
            .withDefaultMode(0420)
            .addNewSource()
            .withNewServiceAccountToken()
            .withPath("token")
            .withExpirationSeconds(3607L)
            .endServiceAccountToken()
            .endSource()
            .addNewSource()
            .withNewConfigMap()
            .withName("kube-root-ca.crt")
            .addNewItem("ca.crt", null, "ca.crt")
            .endConfigMap()
            .endSource()
            .addNewSource()
            .withNewDownwardAPI()
            .addNewItem()
            .withPath("namespace")
            .withNewFieldRef()
            .withFieldPath("metadata.namespace")
            .endFieldRef()
            .endItem()
            .endDownwardAPI()
            .endSource()
            .addNewSource()
            .withNewSecret()
            .withName("db")
            .endSecret()
            .endSource()
            .endProjected()
            .build();
    Path dir = volumes().setUp(pod(vol)).get("kube-api-access");

    assertThat(dir)
        .isEqualTo(root.resolve("pods/uid1/volumes/kubernetes.io~projected/kube-api-access"));
    assertThat(mounter.mounts).containsKey(dir);
    assertThat(Files.readString(dir.resolve("token"))).isEqualTo("token-of-default");
    assertThat(Files.readString(dir.resolve("ca.crt"))).isEqualTo("CA");
    assertThat(Files.readString(dir.resolve("namespace"))).isEqualTo("ns");
    assertThat(Files.readString(dir.resolve("password"))).isEqualTo("pw");
    assertThat(AtomicWriterTest.mode(dir.resolve("..data/token"))).isEqualTo(0420);
  }

  @Test
  void projectedErrorsAreAggregated() {
    Volume vol =
        new VolumeBuilder()
            .withName("v")
            .withNewProjected()
            .addNewSource()
            .withNewSecret()
            .withName("s1")
            .endSecret()
            .endSource()
            .addNewSource()
            .withNewConfigMap()
            .withName("c1")
            .endConfigMap()
            .endSource()
            .endProjected()
            .build();
    assertThatThrownBy(() -> volumes().setUp(pod(vol)))
        .hasMessage("[secret \"s1\" not found, configmap \"c1\" not found]");
  }

  @Test
  void aBadItemPathIsRefusedWithAnEvent() {
    secret("db", Map.of("k", "v"));
    Volume vol =
        new VolumeBuilder()
            .withName("creds")
            .withNewSecret()
            .withSecretName("db")
            .addNewItem("k", null, "../escape")
            .endSecret()
            .build();
    assertThatThrownBy(() -> volumes().setUp(pod(vol)))
        .hasMessage("invalid path: must not contain '..': ../escape");
    assertThat(events).anyMatch(e -> e.contains("must not contain '..'"));
  }

  @Test
  void anUnsupportedVolumeNamesItsTypeAndTheOthersAreStillSetUp() {
    Volume pvc =
        new VolumeBuilder()
            .withName("data")
            .withNewPersistentVolumeClaim()
            .withClaimName("claim")
            .endPersistentVolumeClaim()
            .build();
    Volume scratch =
        new VolumeBuilder().withName("scratch").withNewEmptyDir().endEmptyDir().build();
    assertThatThrownBy(() -> volumes().setUp(pod(pvc, scratch)))
        .hasMessage("volume type \"persistentVolumeClaim\" is not supported by jkubelet");
    assertThat(root.resolve("pods/uid1/volumes/kubernetes.io~empty-dir/scratch")).isDirectory();
  }

  @Test
  void aMemoryEmptyDirIsATmpfsOfItsSizeLimit() throws Exception {
    Volume vol =
        new VolumeBuilder()
            .withName("cache")
            .withNewEmptyDir()
            .withMedium("Memory")
            .withSizeLimit(new Quantity("64Mi"))
            .endEmptyDir()
            .build();
    Path dir = volumes().setUp(pod(vol)).get("cache");
    assertThat(mounter.mounts).containsEntry(dir, 64L << 20);
    assertThat(AtomicWriterTest.mode(dir)).isEqualTo(0777);
  }

  @Test
  void mountPropagationFromAVolumeMakesTheRootDirRSharedOnceAndAFailureIsAFailedMount()
      throws Exception {
    Volume scratch =
        new VolumeBuilder().withName("scratch").withNewEmptyDir().endEmptyDir().build();
    Pod plain = pod(scratch);
    volumes().setUp(plain);
    assertThat(mounter.shared).isEmpty();

    Pod propagating = pod(scratch);
    propagating
        .getSpec()
        .getContainers()
        .get(0)
        .setVolumeMounts(
            List.of(
                new io.fabric8.kubernetes.api.model.VolumeMountBuilder()
                    .withName("scratch")
                    .withMountPath("/data")
                    .withMountPropagation("HostToContainer")
                    .build()));
    mounter.refuse = "permission denied";
    VolumeManager vm = volumes();
    assertThatThrownBy(() -> vm.setUp(propagating))
        .isInstanceOf(MountFailure.class)
        .hasMessage(
            "mountPropagation needs the root dir "
                + root
                + " on a shared mount, and making it rshared failed: permission denied");
    assertThat(events).anyMatch(e -> e.startsWith("Warning FailedMount: MountVolume.SetUp failed"));

    mounter.refuse = null;
    vm.setUp(propagating);
    vm.setUp(propagating);
    assertThat(mounter.shared).containsExactly(root.toAbsolutePath().normalize());
  }

  @Test
  void downwardApiLabelsFollowThePod() throws Exception {
    Volume vol =
        new VolumeBuilder()
            .withName("info")
            .withNewDownwardAPI()
            .addNewItem()
            .withPath("labels")
            .withNewFieldRef()
            .withFieldPath("metadata.labels")
            .endFieldRef()
            .endItem()
            .endDownwardAPI()
            .build();
    VolumeManager v = volumes();
    Pod pod = pod(vol);
    Path dir = v.setUp(pod).get("info");
    assertThat(dir).isEqualTo(root.resolve("pods/uid1/volumes/kubernetes.io~downward-api/info"));
    assertThat(Files.readString(dir.resolve("labels"))).isEqualTo("app=\"web\"");

    pod.getMetadata().setLabels(Map.of("app", "web", "tier", "front"));
    v.setUp(pod);
    assertThat(Files.readString(dir.resolve("labels"))).isEqualTo("app=\"web\"\ntier=\"front\"");
  }

  @Test
  void cleanUpUnmountsAndRemovesThePodDir() throws Exception {
    secret("db", Map.of("password", "x"));
    VolumeManager v = volumes();
    v.setUp(pod(secretVolume("creds", "db", null)));

    v.cleanUp("uid1");
    assertThat(mounter.mounts).isEmpty();
    assertThat(root.resolve("pods/uid1")).doesNotExist();
  }
}
