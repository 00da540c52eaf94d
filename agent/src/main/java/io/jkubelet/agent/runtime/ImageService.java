package io.jkubelet.agent.runtime;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The engine's images as image garbage collection sees them (the CRI's {@code ImageService}, plus
 * what it needs of the engine's containers): every image with its id and size, the images that any
 * container on the engine uses, removal, and the image file system's usage.
 *
 * <p>NOTE: unlike {@link Runtime#listContainers()}, {@link #imagesInUse()} counts every container
 * on the engine, jkubelet's or not, running or not: an image another tool's container uses is never
 * a candidate. Implementations must be thread-safe; every method may throw {@link RuntimeError}.
 */
public interface ImageService {

  /**
   * An image on the engine.
   *
   * @param id its id ({@code sha256:...})
   * @param repoTags its tags ({@code busybox:1.29}), never the {@code <none>} ones
   * @param sizeBytes its size on disk, its layers shared with other images included
   */
  record Image(String id, List<String> repoTags, long sizeBytes) {
    public Image {
      repoTags = List.copyOf(repoTags);
    }
  }

  /**
   * The usage of the file system the engine keeps its images on.
   *
   * @param capacityBytes its size
   * @param availableBytes what an unprivileged user may still write
   */
  record FsUsage(long capacityBytes, long availableBytes) {}

  /** Every image on the engine, in no particular order. */
  List<Image> images();

  /** The ids of the images that any container on the engine uses, running or not. */
  Set<String> imagesInUse();

  /** The id of the image a reference names ({@code pause:3.2}, an id), or empty when absent. */
  Optional<String> imageId(String reference);

  /**
   * Removes an image by its id, all its tags with it, as dockershim's {@code RemoveImage}; one that
   * is gone already is not an error. The engine refuses an image a container uses ({@code OTHER},
   * nothing removed).
   */
  void removeImage(String id);

  /** The image file system's capacity and free space, read now. */
  FsUsage imageFsUsage();
}
