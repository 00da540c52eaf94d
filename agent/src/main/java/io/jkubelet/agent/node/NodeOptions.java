package io.jkubelet.agent.node;

import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.jkubelet.agent.util.LabelSyntax;
import io.jkubelet.config.KubeletConfiguration;
import io.jkubelet.config.Records;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What a {@link NodeStatusManager} registers and reports. Validated on construction, so a bad value
 * fails where it is made, not on the heartbeat thread.
 *
 * @param nodeName the Node's name (a lowercase DNS subdomain)
 * @param nodeIp reported as the {@code InternalIP} address
 * @param hostname reported as the {@code Hostname} address and the {@code kubernetes.io/hostname}
 *     label; the node name when null or blank
 * @param registration the labels and taints the Node is registered with
 * @param capacity what the Node's capacity is made of
 * @param kubeletPort {@code daemonEndpoints.kubeletEndpoint.port}
 * @param kubeletVersion reported as kubeletVersion and kubeProxyVersion, e.g. "v1.20.2"
 * @param heartbeat how often the status and the Lease are written
 */
public record NodeOptions(
    String nodeName,
    String nodeIp,
    String hostname,
    Registration registration,
    Capacity capacity,
    int kubeletPort,
    String kubeletVersion,
    Heartbeat heartbeat) {

  public static final int DEFAULT_MAX_PODS = 110;
  public static final int DEFAULT_KUBELET_PORT = 10250;
  public static final String DEFAULT_KUBELET_VERSION = "v1.20.2";
  public static final Duration DEFAULT_STATUS_UPDATE_FREQUENCY = Duration.ofSeconds(10);
  public static final Duration DEFAULT_STATUS_REPORT_FREQUENCY = Duration.ofMinutes(5);
  public static final int DEFAULT_LEASE_DURATION_SECONDS = 40;

  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  public NodeOptions {
    Records.requireNonNull(
        NodeOptions.class,
        nodeName,
        nodeIp,
        hostname,
        registration,
        capacity,
        kubeletVersion,
        heartbeat);
    if (nodeName.length() > 253 || !DNS_SUBDOMAIN.matcher(nodeName).matches()) {
      throw new IllegalArgumentException(
          "node name must be a lowercase DNS subdomain (a-z, 0-9, '-' and '.'), got \""
              + nodeName
              + "\"");
    }
    if (nodeIp.isBlank()) {
      throw new IllegalArgumentException("node IP must not be empty");
    }
    hostname = hostname.isBlank() ? nodeName : hostname;
    if (kubeletPort < 1 || kubeletPort > 65535) {
      throw new IllegalArgumentException(
          "kubelet port must be between 1 and 65535, got " + kubeletPort);
    }
    if (kubeletVersion.isBlank()) {
      throw new IllegalArgumentException("kubelet version must not be empty");
    }
  }

  /**
   * Whether and with what the Node is registered.
   *
   * @param extraLabels {@code --node-labels}; they override the default labels, as upstream
   * @param taints {@code --register-with-taints}; set only when the Node is created
   * @param providerId {@code --provider-id}, the Node's {@code spec.providerID} when it is created;
   *     "" for none
   * @param register {@code registerNode}: false leaves the Node's creation to someone else, as
   *     upstream's {@code --register-node=false}; the status and Lease are then written once a Node
   *     of this name exists, and neither labels nor taints are ever set
   */
  public record Registration(
      Map<String, String> extraLabels, List<Taint> taints, String providerId, boolean register) {
    public static final Registration NONE = of(Map.of(), List.of());

    public Registration {
      extraLabels = extraLabels == null ? Map.of() : copyLabels(extraLabels);
      taints =
          taints == null
              ? List.of()
              : taints.stream().map(t -> new TaintBuilder(t).build()).toList();
      providerId = providerId == null ? "" : providerId;
    }

    /** Registering the Node with these labels and taints, no provider ID: upstream's defaults. */
    public static Registration of(Map<String, String> extraLabels, List<Taint> taints) {
      return new Registration(extraLabels, taints, "", true);
    }
  }

  /**
   * What the Node's capacity is made of.
   *
   * @param maxPods the {@code pods} capacity
   * @param rootDir the ephemeral-storage capacity is the size of the filesystem that holds it
   */
  public record Capacity(int maxPods, Path rootDir) {
    public Capacity {
      Objects.requireNonNull(rootDir, "rootDir");
      if (maxPods <= 0) {
        throw new IllegalArgumentException("maxPods must be positive, got " + maxPods);
      }
    }
  }

  /**
   * How often the Node's status and Lease are written.
   *
   * @param statusUpdateFrequency how often the status is computed and the Lease renewed (10 s)
   * @param statusReportFrequency how long an unchanged status may go unreported (5 min)
   * @param leaseDurationSeconds the Lease's {@code leaseDurationSeconds} (40)
   */
  public record Heartbeat(
      Duration statusUpdateFrequency, Duration statusReportFrequency, int leaseDurationSeconds) {
    /** Upstream's: 10 s, 5 min, 40 s. */
    public static final Heartbeat DEFAULT =
        new Heartbeat(
            DEFAULT_STATUS_UPDATE_FREQUENCY,
            DEFAULT_STATUS_REPORT_FREQUENCY,
            DEFAULT_LEASE_DURATION_SECONDS);

    public Heartbeat {
      Records.requireNonNull(Heartbeat.class, statusUpdateFrequency, statusReportFrequency);
      positive("statusUpdateFrequency", statusUpdateFrequency);
      positive("statusReportFrequency", statusReportFrequency);
      if (leaseDurationSeconds <= 0) {
        throw new IllegalArgumentException(
            "leaseDurationSeconds must be positive, got " + leaseDurationSeconds);
      }
    }
  }

  /** The upstream defaults: no extra labels or taints, 110 pods, port 10250, 10 s, 5 min, 40 s. */
  public static NodeOptions defaults(String nodeName, String nodeIp, Path rootDir) {
    return new NodeOptions(
        nodeName,
        nodeIp,
        nodeName,
        Registration.NONE,
        new Capacity(DEFAULT_MAX_PODS, rootDir),
        DEFAULT_KUBELET_PORT,
        DEFAULT_KUBELET_VERSION,
        Heartbeat.DEFAULT);
  }

  /**
   * The options of a node named {@code nodeName} (its hostname too) as {@code config} says: its
   * pods, the kubelet API's port, its heartbeat.
   */
  public static NodeOptions of(
      KubeletConfiguration config,
      String nodeName,
      String nodeIp,
      Registration registration,
      Path rootDir) {
    return new NodeOptions(
        nodeName,
        nodeIp,
        nodeName,
        registration,
        new Capacity(config.pods().maxPods(), rootDir),
        config.server().port(),
        DEFAULT_KUBELET_VERSION,
        new Heartbeat(
            config.node().status().nodeStatusUpdateFrequency(),
            config.node().status().nodeStatusReportFrequency(),
            config.node().status().nodeLeaseDurationSeconds()));
  }

  /** A copy with other update and report frequencies. */
  public NodeOptions withFrequencies(Duration update, Duration report) {
    return new NodeOptions(
        nodeName,
        nodeIp,
        hostname,
        registration,
        capacity,
        kubeletPort,
        kubeletVersion,
        new Heartbeat(update, report, heartbeat.leaseDurationSeconds()));
  }

  /** A copy that does not register the Node ({@code registerNode: false}). */
  public NodeOptions withoutRegistration() {
    return new NodeOptions(
        nodeName,
        nodeIp,
        hostname,
        new Registration(
            registration.extraLabels(), registration.taints(), registration.providerId(), false),
        capacity,
        kubeletPort,
        kubeletVersion,
        heartbeat);
  }

  /** A copy with other extra labels and taints. */
  public NodeOptions withLabelsAndTaints(Map<String, String> labels, List<Taint> taints) {
    return new NodeOptions(
        nodeName,
        nodeIp,
        hostname,
        new Registration(labels, taints, registration.providerId(), registration.register()),
        capacity,
        kubeletPort,
        kubeletVersion,
        heartbeat);
  }

  private static Map<String, String> copyLabels(Map<String, String> labels) {
    Map<String, String> copy = new LinkedHashMap<>();
    labels.forEach(
        (k, v) -> {
          LabelSyntax.checkKey(k).ifPresent(err -> fail("label key \"" + k + "\": " + err));
          LabelSyntax.checkValue(v).ifPresent(err -> fail("value of label \"" + k + "\": " + err));
          copy.put(k, v);
        });
    return Collections.unmodifiableMap(copy);
  }

  private static void fail(String message) {
    throw new IllegalArgumentException(message);
  }

  private static void positive(String name, Duration d) {
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, got " + d);
    }
  }
}
