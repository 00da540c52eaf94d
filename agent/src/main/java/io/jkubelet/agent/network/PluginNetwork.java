package io.jkubelet.agent.network;

import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.timeline.PodTimelines;
import io.jkubelet.agent.util.Time;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The pods' network from a CNI plugin ({@code --network-plugin=cni} or {@code kubenet}). Built by
 * {@link #create}; starts nothing until {@link #start}.
 */
public final class PluginNetwork implements PodNetwork {
  private final CniPlugin plugin;
  private final EventRecorder recorder;
  private final List<String> ownPodCidrs;
  private volatile Supplier<List<String>> nodePodCidrs = List::of;

  private PluginNetwork(
      NetworkOptions options,
      NetworkSource source,
      CniExec exec,
      Time time,
      EventRecorder recorder) {
    this.recorder = recorder;
    this.ownPodCidrs = options.podCidr();
    this.plugin =
        new CniPlugin(
            source,
            exec,
            new Attachments(options.cni().cacheDir()),
            this::podCidrs,
            time.clock(),
            time.schedulers());
  }

  /**
   * The network of {@code options}: {@link PodNetwork#NONE} when no plugin is named. Its pod range
   * is {@code options.podCidr()} until a Node's are known ({@link #podCidrsFrom}).
   */
  public static PodNetwork create(NetworkOptions options, Time time, EventRecorder recorder) {
    if (!options.enabled()) {
      return NONE;
    }
    CniExec exec = new CniExec(options.cni().binDirs(), options.cni().execTimeout());
    NetworkSource source =
        options.plugin().equals(NetworkOptions.KUBENET)
            ? new Kubenet(exec, options)
            : NetworkSource.confDir(options.cni().confDir(), exec);
    return new PluginNetwork(options, source, exec, time, recorder);
  }

  private List<String> podCidrs() {
    List<String> node = nodePodCidrs.get();
    return node == null || node.isEmpty() ? ownPodCidrs : node;
  }

  @Override
  public void podCidrsFrom(Supplier<List<String>> node) {
    nodePodCidrs = node;
  }

  @Override
  public Runtime wrap(Runtime runtime, PodTimelines timelines) {
    plugin.runtime(runtime);
    return new NetworkedRuntime(runtime, plugin, recorder, timelines);
  }

  @Override
  public Optional<String> networkError() {
    return plugin
        .status()
        .map(
            why ->
                "runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady"
                    + " message:docker: network plugin is not ready: "
                    + why);
  }

  @Override
  public void start() {
    plugin.start();
  }

  @Override
  public void stop() {
    plugin.stop();
  }

  @Override
  public Health healthy() {
    return plugin.started() ? Health.OK : Health.failing("the network plugin is not started");
  }
}
