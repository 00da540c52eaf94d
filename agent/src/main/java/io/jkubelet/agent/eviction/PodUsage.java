package io.jkubelet.agent.eviction;

import io.jkubelet.config.EvictionSettings.Signal;
import java.util.Map;

/**
 * What one pod uses, for ranking and for the eviction message.
 *
 * @param memoryWorkingSet the pod's memory working set, bytes
 * @param containerMemory each container's working set by name
 * @param disk the pod's local storage
 * @param processes the pod's processes
 */
public record PodUsage(
    long memoryWorkingSet, Map<String, Long> containerMemory, Disk disk, long processes) {
  public PodUsage {
    containerMemory = Map.copyOf(containerMemory);
  }

  /**
   * A pod's local storage, as upstream's summary has it.
   *
   * @param bytes its ephemeral storage: volumes, logs and its containers' writable layers
   * @param inodes the inodes of that storage
   * @param layerBytes its containers' writable layers (each container's {@code rootfs})
   * @param layerInodes their inodes
   * @param containers each container's writable layer and logs, by name
   * @param volumes the bytes of each volume measured, by name
   */
  public record Disk(
      long bytes,
      long inodes,
      long layerBytes,
      long layerInodes,
      Map<String, ContainerDisk> containers,
      Map<String, Long> volumes) {
    public static final Disk NONE = new Disk(0, 0, 0, 0, Map.of(), Map.of());

    public Disk {
      containers = Map.copyOf(containers);
      volumes = Map.copyOf(volumes);
    }

    /**
     * The bytes of the pod on the signal's file system, as upstream's {@code rankDiskPressureFunc}
     * picks its stats: all of them when images and the root dir share one file system; else the
     * writable layers on the image file system, volumes and logs on the root dir's.
     */
    long bytesOn(Signal signal, boolean dedicatedImageFs) {
      return on(signal, dedicatedImageFs, bytes, layerBytes);
    }

    /** The inodes, chosen as {@link #bytesOn}. */
    long inodesOn(Signal signal, boolean dedicatedImageFs) {
      return on(signal, dedicatedImageFs, inodes, layerInodes);
    }

    private static long on(Signal signal, boolean dedicated, long all, long layers) {
      if (!dedicated) {
        return all;
      }
      boolean imageFs = signal == Signal.IMAGEFS_AVAILABLE || signal == Signal.IMAGEFS_INODES_FREE;
      return imageFs ? layers : Math.max(0, all - layers);
    }
  }

  /**
   * A container's writable layer and logs, bytes; each null when not measured.
   *
   * @param layer its writable layer ({@code rootfs})
   * @param logs its log files
   */
  public record ContainerDisk(Long layer, Long logs) {
    /** Upstream's usage in a disk eviction's message: layer and logs, when both are known. */
    java.util.Optional<Long> layerAndLogs() {
      return layer == null || logs == null
          ? java.util.Optional.empty()
          : java.util.Optional.of(layer + logs);
    }

    /**
     * What counts against its ephemeral-storage limit, as upstream's {@code
     * containerEphemeralStorageLimitEviction}: its logs, and its layer unless images and layers
     * have their own file system.
     */
    long againstLimit(boolean dedicatedImageFs) {
      long l = logs == null ? 0 : logs;
      return dedicatedImageFs || layer == null ? l : l + layer;
    }
  }
}
