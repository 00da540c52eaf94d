package io.jkubelet.agent.kuberuntime;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.jkubelet.agent.TestPods;
import io.jkubelet.agent.credentials.AuthConfig;
import io.jkubelet.agent.credentials.Keyring;
import io.jkubelet.agent.credentials.PullSecrets;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.objects.FakePodObjects;
import io.jkubelet.agent.runtime.RegistryAuth;
import io.jkubelet.agent.runtime.fake.FakeRuntime;
import io.jkubelet.agent.util.Backoff;
import io.jkubelet.agent.util.FakeClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Pulls with the pod's pull secrets and the node's keyring, as upstream's {@code PullImage}. */
class ImagePullerCredentialsTest {
  private static final String IMAGE = "reg.example.com:5000/team/app:1";

  private final FakeClock clock = new FakeClock();
  private final FakeRuntime runtime = new FakeRuntime(clock);
  private final FakePodObjects objects = new FakePodObjects();
  private final List<String> events = new ArrayList<>();
  private final List<AuthConfig> nodeCreds = new ArrayList<>();
  private final ImagePuller puller =
      new ImagePuller(
          new ImagePuller.Deps(
              runtime,
              (o, t, reason, msg) -> events.add(reason + ": " + msg),
              clock,
              new Backoff(clock, Duration.ofSeconds(10), Duration.ofMinutes(5)),
              Duration.ofMinutes(1),
              new PullCredentials(objects, repository -> List.copyOf(nodeCreds)),
              TestImagePulls.unstarted(runtime, EventRecorder.NOOP, clock)));

  private Pod pod(String... pullSecrets) {
    Pod pod = TestPods.simple("u1", "p", "c");
    pod.getMetadata().setNamespace("ns");
    pod.getSpec()
        .setImagePullSecrets(
            java.util.Arrays.stream(pullSecrets).map(LocalObjectReference::new).toList());
    Container c = pod.getSpec().getContainers().get(0);
    c.setImage(IMAGE);
    c.setImagePullPolicy("IfNotPresent");
    return pod;
  }

  private String ensure(Pod pod) {
    try {
      puller.ensure(pod, pod.getSpec().getContainers().get(0), Refs.container(pod, "c", false));
      return "ok";
    } catch (StartException e) {
      return e.reason() + ": " + e.getMessage();
    }
  }

  private List<String> pulls() {
    return runtime.calls().stream().filter(s -> s.startsWith("pullImage")).toList();
  }

  private static Secret dockerConfigJson(String name, String location, String user, String pw) {
    String auth =
        Base64.getEncoder().encodeToString((user + ":" + pw).getBytes(StandardCharsets.UTF_8));
    String json = "{\"auths\":{\"" + location + "\":{\"auth\":\"" + auth + "\"}}}";
    return new SecretBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("ns")
        .endMetadata()
        .withType(PullSecrets.TYPE_DOCKER_CONFIG_JSON)
        .withData(
            Map.of(
                PullSecrets.KEY_DOCKER_CONFIG_JSON,
                Base64.getEncoder().encodeToString(json.getBytes(StandardCharsets.UTF_8))))
        .build();
  }

  @Test
  void theRightSecretPulls() {
    runtime.addRegistryImage(IMAGE, RegistryAuth.basic("alice", "right"));
    objects.put(dockerConfigJson("pull", "reg.example.com:5000", "alice", "right"));
    assertThat(ensure(pod("pull"))).isEqualTo("ok");
    assertThat(pulls()).containsExactly("pullImage " + IMAGE + " as alice");
    assertThat(events).anyMatch(e -> e.startsWith("Pulled: Successfully pulled image"));
  }

  @Test
  void eachMatchingCredentialIsTriedInTurnPodSecretsFirst() {
    runtime.addRegistryImage(IMAGE, RegistryAuth.basic("node", "right"));
    objects.put(dockerConfigJson("a", "reg.example.com:5000", "alice", "wrong"));
    objects.put(dockerConfigJson("b", "reg.example.com:5000/team", "bob", "wrong"));
    nodeCreds.add(new AuthConfig("node", "right", ""));
    assertThat(ensure(pod("a", "b"))).isEqualTo("ok");
    assertThat(pulls())
        .as("the longer path first, then the other secret, then the node's")
        .containsExactly(
            "pullImage " + IMAGE + " as bob",
            "pullImage " + IMAGE + " as alice",
            "pullImage " + IMAGE + " as node");
  }

  @Test
  void withoutAMatchingCredentialThePullIsAnonymousAndItsRefusalIsUpstreams() {
    runtime.addRegistryImage(IMAGE, RegistryAuth.basic("alice", "right"));
    objects.put(dockerConfigJson("pull", "elsewhere.example.com", "alice", "right"));
    String failure =
        "rpc error: code = Unknown desc = Error response from daemon: unauthorized:"
            + " authentication required";
    assertThat(ensure(pod("pull"))).isEqualTo("ErrImagePull: " + failure);
    assertThat(pulls()).containsExactly("pullImage " + IMAGE + " as anonymous");
    assertThat(events)
        .contains("Failed: Failed to pull image \"" + IMAGE + "\": " + failure)
        .noneMatch(e -> e.contains("right"));
    assertThat(ensure(pod("pull")))
        .isEqualTo("ImagePullBackOff: Back-off pulling image \"" + IMAGE + "\"");
  }

  @Test
  void severalFailuresAreAggregatedAsUpstreamDoes() {
    runtime.addRegistryImage(IMAGE, RegistryAuth.basic("alice", "right"));
    objects.put(dockerConfigJson("pull", "reg.example.com:5000", "alice", "wrong"));
    nodeCreds.add(new AuthConfig("node", "wrong", ""));
    String one =
        "rpc error: code = Unknown desc = Error response from daemon: unauthorized:"
            + " authentication required";
    assertThat(ensure(pod("pull")))
        .as("the same error twice reads once")
        .isEqualTo("ErrImagePull: " + one);
    assertThat(ImagePuller.aggregate(List.of("a", "b", "a"))).isEqualTo("[a, b]");
    assertThat(ImagePuller.aggregate(List.of("a"))).isEqualTo("a");
  }

  @Test
  void aMissingSecretIsAWarningAndThePullGoesOnWithoutIt() {
    runtime.addRegistryImage(IMAGE, RegistryAuth.basic("node", "right"));
    nodeCreds.add(new AuthConfig("node", "right", ""));
    assertThat(ensure(pod("gone", "also-gone"))).isEqualTo("ok");
    assertThat(events)
        .contains(
            "FailedToRetrieveImagePullSecret: Unable to retrieve some image pull secrets (gone,"
                + " also-gone); attempting to pull the image may not succeed.");
    assertThat(pulls()).containsExactly("pullImage " + IMAGE + " as node");
  }

  @Test
  void aSecretWhoseConfigIsBrokenFailsThePull() {
    objects.put(
        new SecretBuilder()
            .withNewMetadata()
            .withName("broken")
            .withNamespace("ns")
            .endMetadata()
            .withType(PullSecrets.TYPE_DOCKER_CONFIG_JSON)
            .withStringData(Map.of(PullSecrets.KEY_DOCKER_CONFIG_JSON, "{\"auths\":"))
            .build());
    assertThat(ensure(pod("broken"))).startsWith("ErrImagePull: ");
    assertThat(pulls()).isEmpty();
  }

  @Test
  void theSandboxImageUsesTheNodesCredentialsOnly() {
    runtime.addRegistryImage(IMAGE, RegistryAuth.basic("node", "right"));
    objects.put(dockerConfigJson("pull", "reg.example.com:5000", "alice", "right"));
    nodeCreds.add(new AuthConfig("node", "right", ""));
    puller.pullInfra(IMAGE, Duration.ofMinutes(1));
    assertThat(pulls()).containsExactly("pullImage " + IMAGE + " as node");
    assertThat(Keyring.EMPTY.lookup(IMAGE)).isEmpty();
  }
}
