package io.jkubelet.config;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/** Test fixtures: a configuration file setting every supported field, and what it must load as. */
final class Samples {

  private Samples() {}

  /** Sets every supported field to a value other than its default, plus one unsupported field. */
  static final String FULL_YAML =
      """
      # A KubeletConfiguration as an operator might write it.
      apiVersion: kubelet.config.k8s.io/v1beta1
      kind: KubeletConfiguration
      staticPodPath: /etc/kubernetes/manifests
      syncFrequency: 1m30s
      fileCheckFrequency: 500ms
      httpCheckFrequency: 1h
      staticPodURL: https://pods.example.com/manifests
      staticPodURLHeader:
        Authorization: ["Bearer abc"]
        X-Multi: [one, two]
      address: 127.0.0.1
      port: 11250
      readOnlyPort: 0
      registerNode: false
      eventRecordQPS: 50
      eventBurst: 100
      kubeAPIQPS: 20
      kubeAPIBurst: 40
      maxPods: 250
      nodeStatusUpdateFrequency: 1.5s
      nodeStatusReportFrequency: 10m
      nodeLeaseDurationSeconds: 60
      podInfraOomScoreAdj: -998
      cgroupsPerQOS: false
      cgroupRoot: /jkubelet
      cgroupDriver: systemd
      cpuCFSQuota: false
      cpuCFSQuotaPeriod: 50ms
      podPidsLimit: 4194304000
      enforceNodeAllocatable: []
      serializeImagePulls: false
      """;

  /** The configuration {@link #FULL_YAML} describes. */
  static KubeletConfiguration full() {
    return KubeletConfiguration.fileBuilder()
        .set("staticPodPath", "/etc/kubernetes/manifests")
        .set("fileCheckFrequency", Duration.ofMillis(500))
        .set("serializeImagePulls", false)
        .set("httpCheckFrequency", Duration.ofHours(1))
        .set("staticPodURL", "https://pods.example.com/manifests")
        .set(
            "staticPodURLHeader",
            Map.of("Authorization", List.of("Bearer abc"), "X-Multi", List.of("one", "two")))
        .set("syncFrequency", Duration.ofSeconds(90))
        .set("address", "127.0.0.1")
        .set("port", 11250)
        .set("readOnlyPort", 0)
        .set("registerNode", false)
        .set("eventRecordQPS", 50)
        .set("eventBurst", 100)
        .set("kubeAPIQPS", 20)
        .set("kubeAPIBurst", 40)
        .set("maxPods", 250)
        .set("nodeStatusUpdateFrequency", Duration.ofMillis(1500))
        .set("nodeStatusReportFrequency", Duration.ofMinutes(10))
        .set("nodeLeaseDurationSeconds", 60)
        .set("podInfraOomScoreAdj", -998)
        .with(
            new CgroupSettings(
                false,
                "/jkubelet",
                "systemd",
                false,
                Duration.ofMillis(50),
                4194304000L,
                List.of()))
        .build();
  }
}
