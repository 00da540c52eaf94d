package io.jkubelet.agent.node;

import java.nio.file.Path;

/**
 * What jkubelet learns about its host before it builds anything: the node's IP and its machine
 * facts. Read once, by {@link #read}, so that no constructor does I/O.
 *
 * @param nodeIp the node's IP: {@code --node-ip}, or the detected one
 * @param machine cpus, memory, kernel and OS, from {@code /proc} and the root directory's disk
 */
public record HostFacts(String nodeIp, NodeInfo machine) {
  /**
   * Reads the host: detects the IP unless {@code nodeIpFlag} names one, and reads {@link NodeInfo}.
   */
  public static HostFacts read(String nodeIpFlag, Path rootDir) {
    String ip = nodeIpFlag == null || nodeIpFlag.isEmpty() ? NodeIp.detect() : nodeIpFlag;
    return new HostFacts(ip, NodeInfo.read(rootDir));
  }
}
