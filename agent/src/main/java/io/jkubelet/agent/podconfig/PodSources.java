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
    var settings = config.pods().staticPods();
    if (!settings.staticPodPath().isEmpty()) {
      sources.add(
          new FileSource(
              Path.of(settings.staticPodPath()),
              new SourceOptions(
                  settings.fileCheckFrequency(),
                  nodeName,
                  time.clock(),
                  time.schedulers(),
                  podConfig.channel(Source.FILE)),
              recorder));
    }
    if (!settings.staticPodURL().isEmpty()) {
      sources.add(
          new HttpSource(
              URI.create(settings.staticPodURL()),
              settings.staticPodURLHeader(),
              new SourceOptions(
                  settings.httpCheckFrequency(),
                  nodeName,
                  time.clock(),
                  time.schedulers(),
                  podConfig.channel(Source.HTTP))));
    }
    if (api != null) {
      sources.add(new ApiSource(api, nodeName, podConfig.channel(Source.API)));
    }
    return sources;
  }
}
