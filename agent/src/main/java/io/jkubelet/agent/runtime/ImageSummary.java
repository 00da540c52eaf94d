package io.jkubelet.agent.runtime;

import java.util.List;

/**
 * An image on the node, as the Node's {@code status.images} lists it.
 *
 * @param names its tags and digests (e.g. {@code busybox:1.29}), never the {@code <none>} ones
 * @param sizeBytes its size on disk
 */
public record ImageSummary(List<String> names, long sizeBytes) {
  public ImageSummary {
    names = List.copyOf(names);
  }
}
