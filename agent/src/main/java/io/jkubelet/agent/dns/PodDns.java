package io.jkubelet.agent.dns;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodDNSConfig;
import io.fabric8.kubernetes.api.model.PodDNSConfigOption;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.runtime.SandboxConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DNS configuration of a pod's sandbox, as upstream's {@code dns.Configurer.GetPodDNS}: the
 * node's resolv.conf for {@code Default}, the cluster DNS servers with the cluster search path and
 * {@code ndots:5} for {@code ClusterFirst}, nothing for {@code None}; then the pod's {@code
 * dnsConfig} appended, and upstream's limits applied with a {@code DNSConfigForming} Warning.
 * Without cluster DNS, {@code ClusterFirst} falls back to {@code Default} with upstream's {@code
 * MissingClusterDNS} Warnings (the correlator aggregates their repeats).
 *
 * <p>Thread-safe: immutable; it reads the node's resolv.conf on each call (once per sandbox).
 */
public final class PodDns {
  private static final Logger log = LoggerFactory.getLogger(PodDns.class);

  static final int MAX_NAMESERVERS = 3;
  static final int MAX_SEARCHES = 6;
  static final int MAX_SEARCH_CHARS = 256;

  private final List<String> clusterDns;
  private final String clusterDomain;
  private final String resolvConf;
  private final Supplier<String> nodeIp;
  private final String nodeName;
  private final EventRecorder recorder;

  /**
   * @param clusterDns the cluster DNS servers ({@code clusterDNS}), maybe none
   * @param clusterDomain the cluster domain ({@code clusterDomain}), or ""
   * @param resolvConf the node's resolver file ({@code resolvConf}), or "" for none
   */
  public PodDns(
      List<String> clusterDns,
      String clusterDomain,
      String resolvConf,
      Supplier<String> nodeIp,
      String nodeName,
      EventRecorder recorder) {
    this.clusterDns = List.copyOf(clusterDns);
    this.clusterDomain = clusterDomain == null ? "" : clusterDomain;
    this.resolvConf = resolvConf == null ? "" : resolvConf;
    this.nodeIp = nodeIp;
    this.nodeName = nodeName;
    this.recorder = recorder;
  }

  /** The cluster domain, for the pod's FQDN; "" when none is configured. */
  public String clusterDomain() {
    return clusterDomain;
  }

  /** The DNS settings of the pod's sandbox. */
  public SandboxConfig.Dns forPod(Pod pod) {
    ResolvConf dns =
        switch (policy(pod)) {
          case NONE -> ResolvConf.EMPTY;
          case CLUSTER -> cluster(pod);
          case HOST -> host();
        };
    PodDNSConfig extra = pod.getSpec().getDnsConfig();
    if (extra != null) {
      dns = append(dns, extra);
    }
    return fitLimits(dns, pod).toSandbox();
  }

  enum Policy {
    NONE,
    CLUSTER,
    HOST
  }

  /** Upstream's {@code getPodDNSType}; an unknown policy counts as ClusterFirst. */
  static Policy policy(Pod pod) {
    String p = pod.getSpec().getDnsPolicy() == null ? "ClusterFirst" : pod.getSpec().getDnsPolicy();
    boolean hostNetwork = Boolean.TRUE.equals(pod.getSpec().getHostNetwork());
    return switch (p) {
      case "None" -> Policy.NONE;
      case "ClusterFirstWithHostNet" -> Policy.CLUSTER;
      case "Default" -> Policy.HOST;
      case "ClusterFirst" -> hostNetwork ? Policy.HOST : Policy.CLUSTER;
      default -> Policy.CLUSTER;
    };
  }

  private ResolvConf cluster(Pod pod) {
    ResolvConf host = host();
    if (clusterDns.isEmpty()) {
      String msg =
          "kubelet does not have ClusterDNS IP configured and cannot create Pod using"
              + " \"ClusterFirst\" policy. Falling back to \"Default\" policy.";
      recorder.event(Refs.node(nodeName), EventType.Warning, "MissingClusterDNS", msg);
      recorder.eventf(
          Refs.pod(pod),
          EventType.Warning,
          "MissingClusterDNS",
          "pod: \"%s_%s(%s)\". %s",
          pod.getMetadata().getName(),
          pod.getMetadata().getNamespace(),
          pod.getMetadata().getUid(),
          msg);
      return host;
    }
    List<String> searches = host.searches();
    if (!clusterDomain.isEmpty()) {
      List<String> cluster = new ArrayList<>();
      cluster.add(pod.getMetadata().getNamespace() + ".svc." + clusterDomain);
      cluster.add("svc." + clusterDomain);
      cluster.add(clusterDomain);
      cluster.addAll(host.searches());
      searches = distinct(cluster);
    }
    return new ResolvConf(clusterDns, searches, List.of("ndots:5"));
  }

  /** The node's resolver, or a localhost-only one when {@code resolvConf} is "". */
  private ResolvConf host() {
    if (resolvConf.isEmpty()) {
      String ip = nodeIp.get();
      String server = ip != null && ip.contains(":") ? "::1" : "127.0.0.1";
      return new ResolvConf(List.of(server), List.of("."), List.of());
    }
    try {
      return ResolvConf.parse(Files.readString(Path.of(resolvConf)));
    } catch (IOException e) {
      log.warn("PodDns: cannot read {}: {}; pods get no DNS servers from it", resolvConf, e);
      return ResolvConf.EMPTY;
    }
  }

  /** Upstream's {@code appendDNSConfig}: servers and searches appended, options merged by name. */
  static ResolvConf append(ResolvConf base, PodDNSConfig extra) {
    List<String> servers = new ArrayList<>(base.servers());
    if (extra.getNameservers() != null) {
      servers.addAll(extra.getNameservers());
    }
    List<String> searches = new ArrayList<>(base.searches());
    if (extra.getSearches() != null) {
      searches.addAll(extra.getSearches());
    }
    Map<String, String> options = new LinkedHashMap<>();
    for (String o : base.options()) {
      int i = o.indexOf(':');
      options.put(i < 0 ? o : o.substring(0, i), i < 0 ? "" : o.substring(i + 1));
    }
    if (extra.getOptions() != null) {
      for (PodDNSConfigOption o : extra.getOptions()) {
        options.put(o.getName(), o.getValue() == null ? "" : o.getValue());
      }
    }
    List<String> merged = new ArrayList<>();
    options.forEach((k, v) -> merged.add(v.isEmpty() ? k : k + ":" + v));
    return new ResolvConf(distinct(servers), distinct(searches), merged);
  }

  /** Upstream's limits: 3 nameservers, 6 search domains in at most 256 characters. */
  private ResolvConf fitLimits(ResolvConf dns, Pod pod) {
    List<String> searches = dns.searches();
    boolean exceeded = false;
    if (searches.size() > MAX_SEARCHES) {
      searches = searches.subList(0, MAX_SEARCHES);
      exceeded = true;
    }
    while (!searches.isEmpty() && String.join(" ", searches).length() > MAX_SEARCH_CHARS) {
      searches = searches.subList(0, searches.size() - 1);
      exceeded = true;
    }
    if (exceeded) {
      forming(
          pod,
          "Search Line limits were exceeded, some search paths have been omitted, the applied"
              + " search line is: "
              + String.join(" ", searches));
    }
    List<String> servers = dns.servers();
    if (servers.size() > MAX_NAMESERVERS) {
      servers = servers.subList(0, MAX_NAMESERVERS);
      forming(
          pod,
          "Nameserver limits were exceeded, some nameservers have been omitted, the applied"
              + " nameserver line is: "
              + String.join(" ", servers));
    }
    return new ResolvConf(servers, searches, dns.options());
  }

  private void forming(Pod pod, String message) {
    log.error(
        "PodDns: {}/{}: {}",
        pod.getMetadata().getNamespace(),
        pod.getMetadata().getName(),
        message);
    recorder.event(Refs.pod(pod), EventType.Warning, "DNSConfigForming", message);
  }

  private static List<String> distinct(List<String> in) {
    return List.copyOf(new LinkedHashSet<>(in));
  }
}
