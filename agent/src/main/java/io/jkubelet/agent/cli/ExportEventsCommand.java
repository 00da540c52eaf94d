package io.jkubelet.agent.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.jkubelet.agent.client.ApiHttpClients;
import io.jkubelet.agent.client.Kubeconfig;
import io.jkubelet.agent.export.ClusterEventExporter;
import io.jkubelet.agent.export.Exporter;
import io.jkubelet.agent.node.NodeName;
import io.jkubelet.agent.util.Time;
import io.jkubelet.config.ConfigException;
import io.jkubelet.config.EventExport;
import io.jkubelet.config.KubeletConfiguration;
import io.jkubelet.config.KubeletConfigurationBuilder;
import io.jkubelet.config.Settings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code jkubelet export-events}: exports a cluster's Events (jkubelet's, the control plane's,
 * everyone's) with an informer, adds and updates, until SIGTERM. With {@code --leader-elect} it
 * takes a Lease first, so that of several replicas only one exports.
 */
@Command(
    name = "export-events",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    modelTransformer = SettingFlags.Export.class,
    description = {
      "Export a cluster's Events to Elasticsearch/OpenSearch and/or a JSON-lines file, until"
          + " SIGTERM.",
      "Adds and updates are exported; the document id is the event's UID."
    })
public final class ExportEventsCommand implements Callable<Integer> {
  private static final Logger log = LoggerFactory.getLogger(ExportEventsCommand.class);

  /** The flags of {@code eventExport}, added to this command by {@link SettingFlags.Export}. */
  SettingFlags settingFlags;

  @Option(
      names = "--kubeconfig",
      paramLabel = "FILE",
      required = true,
      description = "A kubeconfig of the API server; it needs list and watch on events.")
  Path kubeconfig;

  @Option(
      names = "--namespace",
      paramLabel = "NS",
      description = "Export this namespace's events only (default: all namespaces).")
  String namespace;

  @Option(
      names = "--root-dir",
      paramLabel = "DIR",
      defaultValue = "/var/lib/jkubelet",
      description = "The spool lives in DIR/events-spool (default: ${DEFAULT-VALUE}).")
  Path rootDir;

  @Option(
      names = "--leader-elect",
      description = "Take the Lease --lease-namespace/--lease-name before exporting.")
  boolean leaderElect;

  @Option(
      names = "--lease-namespace",
      paramLabel = "NS",
      defaultValue = "kube-system",
      description = "The leader election Lease's namespace (default: ${DEFAULT-VALUE}).")
  String leaseNamespace;

  @Option(
      names = "--lease-name",
      paramLabel = "NAME",
      defaultValue = "jkubelet-export-events",
      description = "The leader election Lease's name (default: ${DEFAULT-VALUE}).")
  String leaseName;

  @Mixin Verbosity verbosity;

  /** The validated export settings; a configuration error names the flag. */
  EventExport settings() {
    Map<String, String> flagOf = new HashMap<>();
    KubeletConfigurationBuilder b = KubeletConfiguration.builder();
    settingFlags.overlay(b, flagOf);
    EventExport e = b.build().events().export();
    if (!e.enabled()) {
      throw new ConfigException(
          "--event-export-url", "give --event-export-url or --event-export-file");
    }
    try {
      Settings.validate(e);
    } catch (ConfigException x) {
      throw SettingFlags.named(x, flagOf);
    }
    return e;
  }

  @Override
  public Integer call() throws Exception {
    EventExport settings = settings();
    Time time = Time.system();
    List<Exporter> exporters =
        io.jkubelet.agent.export.Exporters.of(settings, rootDir.toAbsolutePath(), time);
    KubernetesClient client =
        ApiHttpClients.small(
                new KubernetesClientBuilder().withConfig(Kubeconfig.load(kubeconfig, time.clock())))
            .build();
    var exporter = new ClusterEventExporter(client, namespace, exporters);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  exporter.stop();
                  stopped.countDown();
                },
                "shutdown"));
    if (!leaderElect) {
      exporter.start();
      stopped.await();
      return 0;
    }
    String identity = NodeName.kernelHostname() + "_" + UUID.randomUUID();
    var elector =
        client
            .leaderElector()
            .withConfig(
                new LeaderElectionConfigBuilder()
                    .withName(leaseName)
                    .withLock(new LeaseLock(leaseNamespace, leaseName, identity))
                    .withLeaseDuration(Duration.ofSeconds(15))
                    .withRenewDeadline(Duration.ofSeconds(10))
                    .withRetryPeriod(Duration.ofSeconds(2))
                    .withReleaseOnCancel(true)
                    .withLeaderCallbacks(
                        new LeaderCallbacks(
                            () -> {
                              log.info("export-events: {} leads; exporting", identity);
                              exporter.start();
                            },
                            () -> {
                              log.info("export-events: {} lost the lease; stopping", identity);
                              exporter.stop();
                              stopped.countDown();
                            },
                            leader -> log.info("export-events: the leader is {}", leader)))
                    .build())
            .build();
    log.info("export-events: {} waits for Lease {}/{}", identity, leaseNamespace, leaseName);
    var running = elector.start();
    stopped.await();
    running.cancel(true);
    // Losing the lease ends the process: a supervisor starts it again as a follower.
    return exporter.healthy().ok() ? 0 : 1;
  }
}
