package io.jkubelet.agent.podconfig;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.util.Lifecycle;
import io.jkubelet.agent.util.Time;
import io.jkubelet.config.KubeletConfiguration;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The pod sources a configuration asks for, each sending its pods to its PodConfig channel. */
public final class PodSources {
  private PodSources() {}

  /**
   * The file source when {@code staticPodPath} is set, the HTTP source when {@code staticPodURL}
   * is, and the API source when {@code api} is not null (cluster mode). None is started.
   */
  public static List<Lifecycle> create(
      KubeletConfiguration config,
      String nodeName,
      PodConfig podConfig,
      Time time,
      EventRecorder recorder,
      KubernetesClient api) {
    List<Lifecycle> sources = new ArrayList<>();
    if (!config.pods().staticPods().staticPodPath().isEmpty()) {
      sources.add(
          new FileSource(
              Path.of(config.pods().staticPods().staticPodPath()),
              config.pods().staticPods().fileCheckFrequency(),
              nodeName,
              time.clock(),
              time.schedulers(),
              recorder,
              podConfig.channel(Source.FILE)));
    }
    if (!config.pods().staticPods().staticPodURL().isEmpty()) {
      sources.add(
          new HttpSource(
              URI.create(config.pods().staticPods().staticPodURL()),
              config.pods().staticPods().staticPodURLHeader(),
              config.pods().staticPods().httpCheckFrequency(),
              nodeName,
              time.clock(),
              time.schedulers(),
              podConfig.channel(Source.HTTP)));
    }
    if (api != null) {
      sources.add(new ApiSource(api, nodeName, podConfig.channel(Source.API)));
    }
    return sources;
  }
}
