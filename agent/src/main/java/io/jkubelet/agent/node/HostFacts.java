package io.jkubelet.agent.node;

import java.nio.file.Path;

/**
 * What jkubelet learns about its host before it builds anything: the node's IP and its machine
 * facts. Read once, by {@link #read}, so that no constructor does I/O.
 *
 * @param nodeIp the node's IP: {@code --node-ip}, or the one found for the node's name ({@link
 *     NodeIp#forNode})
 * @param machine cpus, memory, kernel and OS, from {@code /proc} and the root directory's disk
 */
public record HostFacts(String nodeIp, NodeInfo machine) {
  /**
   * Reads the host: finds the node's IP unless {@code nodeIpFlag} names one, and reads {@link
   * NodeInfo}.
   */
  public static HostFacts read(String nodeIpFlag, String nodeName, Path rootDir) {
    String ip = nodeIpFlag == null || nodeIpFlag.isEmpty() ? NodeIp.forNode(nodeName) : nodeIpFlag;
    return new HostFacts(ip, NodeInfo.read(rootDir));
  }
}
