package io.jkubelet.config;

import java.time.Duration;

/**
 * The container engine's settings: upstream's container runtime flags (docker only) and the
 * KubeletConfiguration fields of its runtime calls and image pulls. Checked by {@link
 * ConfigValidator}.
 */
public record RuntimeSettings(
    @Field(
            file = Field.FLAG_ONLY,
            label = "RUNTIME",
            value = "docker",
            check = Checks.ContainerRuntime.class,
            doc = "The container runtime: docker, the one jkubelet runs pods on")
        String containerRuntime,
    @Field(
            file = Field.FLAG_ONLY,
            label = "URL",
            value = RuntimeSettings.DOCKERSHIM_ENDPOINT,
            doc =
                "The Docker Engine's socket, as --docker-endpoint (unix:// or a path); upstream's"
                    + " default, dockershim's socket, means --docker-endpoint's")
        String containerRuntimeEndpoint,
    @Field(
            value = "2m",
            check = Checks.Positive.class,
            doc =
                "How long a call to the engine may take, but for pulls, logs, exec, attach and"
                    + " port-forward")
        Duration runtimeRequestTimeout,
    @Field(value = "true", doc = "Pull one image at a time") boolean serializeImagePulls,
    @Field(
            flag = "--registry-qps",
            label = "QPS",
            value = "5",
            check = Checks.NotNegativeNumber.class,
            doc = "Image pulls per second; beyond it and the burst a pull fails; 0: no limit")
        int registryPullQPS,
    @Field(
            value = "10",
            zeroIsUnset = true,
            check = Checks.NotNegativeNumber.class,
            doc = "The pulls allowed at once above --registry-qps")
        int registryBurst) {

  /** Upstream v1.20's default {@code --container-runtime-endpoint}: its dockershim's socket. */
  public static final String DOCKERSHIM_ENDPOINT = "unix:///var/run/dockershim.sock";

  /**
   * The engine's endpoint: {@code --container-runtime-endpoint} when it names one (a bare path as
   * {@code unix://}), else {@code dockerEndpoint}.
   *
   * @throws ConfigException when both name an endpoint and they differ
   */
  public String engineEndpoint(String dockerEndpoint, String dockerDefault) {
    String e = containerRuntimeEndpoint.strip();
    if (e.isEmpty() || e.equals(DOCKERSHIM_ENDPOINT)) {
      return dockerEndpoint;
    }
    String engine = e.startsWith("/") ? "unix://" + e : e;
    if (!dockerEndpoint.equals(dockerDefault) && !dockerEndpoint.equals(engine)) {
      throw new ConfigException(
          "containerRuntimeEndpoint",
          "names the engine's socket, as --docker-endpoint does, and they differ: \""
              + engine
              + "\" and \""
              + dockerEndpoint
              + "\"");
    }
    return engine;
  }
}
