package io.jkubelet.agent.network;

import java.util.List;

/**
 * Where the node's CNI network comes from: a configuration directory ({@code cni}) or one made from
 * the node's pod CIDRs ({@code kubenet}).
 */
interface NetworkSource {
  /** The plugin's name, as {@code --network-plugin} gives it. */
  String name();

  /** Reads the network now; {@code podCidrs} are the node's, possibly none yet. */
  ConfDir.Choice read(List<String> podCidrs);

  /** Why there is no network, when {@link #read} found none and named no file. */
  String uninitialized();

  /** A configuration directory, as {@code --network-plugin=cni}. */
  static NetworkSource confDir(java.nio.file.Path dir, CniExec exec) {
    return new NetworkSource() {
      @Override
      public String name() {
        return "cni";
      }

      @Override
      public ConfDir.Choice read(List<String> podCidrs) {
        return ConfDir.scan(dir, exec);
      }

      @Override
      public String uninitialized() {
        return "cni config uninitialized";
      }
    };
  }
}
