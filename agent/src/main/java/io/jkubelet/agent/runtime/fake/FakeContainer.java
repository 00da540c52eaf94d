package io.jkubelet.agent.runtime.fake;

import io.jkubelet.agent.runtime.ContainerConfig;
import io.jkubelet.agent.runtime.ContainerState;
import io.jkubelet.agent.runtime.ContainerStatus;
import io.jkubelet.agent.runtime.ContainerSummary;
import io.jkubelet.agent.runtime.Labels;
import io.jkubelet.agent.runtime.SandboxConfig;
import io.jkubelet.agent.runtime.SandboxStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * A container (or sandbox) as a {@link FakeRuntime} keeps it, and how the fake reports it: as
 * {@code DockerRuntime} would list and inspect it. Guarded by the fake runtime's monitor; tests
 * read its fields through {@link FakeRuntime#all} and the like.
 */
public final class FakeContainer {
  public final String id;
  public final String name;
  public final boolean sandbox;
  public final Map<String, String> labels;
  public final String image;
  public final ContainerConfig config;
  public final SandboxConfig sandboxConfig;
  public ContainerState state = ContainerState.CREATED;
  public final Instant createdAt;
  public Instant startedAt;
  public Instant finishedAt;
  public int exitCode;
  public String reason = "";
  public Duration lastStopGrace;

  /** Its main process while it runs, as {@code ContainerStatus.pid} reports it. */
  public long pid = 4242;

  private FakeContainer(
      String id,
      String name,
      Map<String, String> labels,
      String image,
      Instant createdAt,
      ContainerConfig config,
      SandboxConfig sandboxConfig) {
    this.id = id;
    this.name = name;
    this.sandbox = sandboxConfig != null;
    this.labels = Map.copyOf(labels);
    this.image = image;
    this.config = config;
    this.sandboxConfig = sandboxConfig;
    this.createdAt = createdAt;
  }

  /** A pod sandbox made from its config. */
  static FakeContainer sandbox(String id, SandboxConfig config, Instant createdAt) {
    return new FakeContainer(
        id, config.containerName(), config.labels(), config.image(), createdAt, null, config);
  }

  /** An app container made from its config, with these labels (the config's and the runtime's). */
  static FakeContainer container(
      String id, ContainerConfig config, Map<String, String> labels, Instant createdAt) {
    return new FakeContainer(id, config.name(), labels, config.image(), createdAt, config, null);
  }

  /** A container that jkubelet did not create: no config, no labels. */
  static FakeContainer foreign(String id, String name, Instant createdAt) {
    return new FakeContainer(id, name, Map.of(), "other", createdAt, null, null);
  }

  boolean running() {
    return state == ContainerState.RUNNING;
  }

  /** As a listing names it; empty for a container without pod labels. */
  Optional<ContainerSummary> summary() {
    return Labels.podOf(labels)
        .map(
            pod ->
                new ContainerSummary(
                    id,
                    pod,
                    sandbox
                        ? Labels.POD_CONTAINER_NAME
                        : labels.getOrDefault(Labels.CONTAINER_NAME, ""),
                    sandbox,
                    state,
                    createdAt,
                    Labels.intLabel(labels, Labels.RESTART_COUNT, 0)));
  }

  /** A sandbox's status: ready while it runs, with a fake IP unless on the host's network. */
  SandboxStatus sandboxStatus() {
    boolean ready = running();
    return SandboxStatus.of(
        id,
        Labels.trailingNumber(name),
        ready,
        ready && !sandboxConfig.network().hostNetwork() && !sandboxConfig.network().pluginNetwork()
            ? "10.0.0." + (Integer.parseInt(id.substring(56), 16) % 250 + 2)
            : "",
        createdAt,
        labels);
  }

  /** An app container's status, its exit reason as dockershim's when the test set none. */
  ContainerStatus status() {
    String why = reason;
    if (state == ContainerState.EXITED && why.isEmpty()) {
      why = exitCode == 0 ? "Completed" : "Error";
    }
    return new ContainerStatus(
        id,
        labels.getOrDefault(Labels.CONTAINER_NAME, ""),
        labels.getOrDefault(Labels.SANDBOX_ID, ""),
        state,
        new ContainerStatus.Times(createdAt, startedAt, finishedAt),
        new ContainerStatus.Exit(exitCode, why, ""),
        new ContainerStatus.Origin(
            image,
            "docker://sha256:" + Integer.toHexString(image.hashCode()),
            labels.getOrDefault(Labels.CONTAINER_HASH, ""),
            Labels.intLabel(labels, Labels.RESTART_COUNT, 0),
            labels),
        running() ? pid : 0);
  }
}
