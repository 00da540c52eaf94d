package io.jkubelet.agent.stats;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import java.util.List;

/**
 * The summary API's answer, as upstream's {@code pkg/kubelet/apis/stats/v1alpha1/types.go} (v1.20):
 * the same field names, so that metrics-server and {@code kubectl top} read it unchanged. Times are
 * RFC 3339 strings; absent values are null and left out of the JSON.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Summary(NodeStats node, List<PodStats> pods) {

  /** The node's figures; its {@link Usage} inline, as upstream's fields. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record NodeStats(
      String nodeName,
      List<ContainerStats> systemContainers,
      String startTime,
      @JsonUnwrapped Usage usage,
      FsStats fs,
      RuntimeStats runtime,
      RlimitStats rlimit)
      implements Measured {}

  /** A pod's figures; its {@link Usage} inline, as upstream's fields. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record PodStats(
      PodReference podRef,
      String startTime,
      List<ContainerStats> containers,
      @JsonUnwrapped Usage usage,
      List<VolumeStats> volume,
      @JsonProperty("ephemeral-storage") FsStats ephemeralStorage,
      @JsonProperty("process_stats") ProcessStats processStats)
      implements Measured {}

  /** A node's or a pod's figures, whose {@link Usage} reads through. */
  public interface Measured {
    Usage usage();

    default CpuStats cpu() {
      return usage() == null ? null : usage().cpu();
    }

    default MemoryStats memory() {
      return usage() == null ? null : usage().memory();
    }

    default NetworkStats network() {
      return usage() == null ? null : usage().network();
    }
  }

  /**
   * What a node or a pod uses of CPU, memory and network, each null when not known. In the JSON the
   * three stand inline in the node's or pod's object.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Usage(CpuStats cpu, MemoryStats memory, NetworkStats network) {}

  public record PodReference(String name, String namespace, String uid) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record ContainerStats(
      String name,
      String startTime,
      CpuStats cpu,
      MemoryStats memory,
      FsStats rootfs,
      FsStats logs) {}

  /**
   * @param usageNanoCores the rate over the interval since the previous sample; null on the first
   * @param usageCoreNanoSeconds cumulative CPU time
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record CpuStats(String time, Long usageNanoCores, Long usageCoreNanoSeconds) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record MemoryStats(
      String time,
      Long availableBytes,
      Long usageBytes,
      Long workingSetBytes,
      Long rssBytes,
      Long pageFaults,
      Long majorPageFaults) {}

  /** The default interface's figures inline (as Go's embedded struct), and every interface's. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record NetworkStats(
      String time,
      String name,
      Long rxBytes,
      Long rxErrors,
      Long txBytes,
      Long txErrors,
      List<InterfaceStats> interfaces) {}

  public record InterfaceStats(
      String name, Long rxBytes, Long rxErrors, Long txBytes, Long txErrors) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record FsStats(
      String time,
      Long availableBytes,
      Long capacityBytes,
      Long usedBytes,
      Long inodesFree,
      Long inodes,
      Long inodesUsed) {}

  /** A volume's {@code FsStats}, inline as Go's embedded struct, with the volume's name. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record VolumeStats(@JsonUnwrapped FsStats fs, String name) {}

  public record RuntimeStats(FsStats imageFs) {}

  public record RlimitStats(String time, Long maxpid, Long curproc) {}

  public record ProcessStats(@JsonProperty("process_count") Long processCount) {}

  /** The name of the system container of the pods' cgroup ({@code kubepods}), as upstream's. */
  public static final String SYSTEM_CONTAINER_PODS = "pods";

  /** RFC 3339 at second precision, as Kubernetes' {@code metav1.Time}. */
  static String time(java.time.Instant t) {
    return t.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
  }
}
