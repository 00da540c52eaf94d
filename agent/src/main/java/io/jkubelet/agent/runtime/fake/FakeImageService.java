package io.jkubelet.agent.runtime.fake;

import io.jkubelet.agent.runtime.ImageService;
import io.jkubelet.agent.runtime.RuntimeError;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * A hand-written {@link ImageService}: images with ids, tags and sizes, containers (any, not only
 * jkubelet's) that use them, and a disk whose free space grows by an image's size when it is
 * removed. Held to Docker's behaviour by {@code ImageServiceContract} (in the tests). Thread-safe
 * (synchronized).
 */
public class FakeImageService implements ImageService {
  private final Map<String, Image> images = new LinkedHashMap<>();
  private final Map<String, String> users = new HashMap<>(); // container -> image id
  private final List<String> removed = new ArrayList<>();
  private final Set<String> failing = new TreeSet<>();
  private long capacity = 100_000;
  private long available = 100_000;
  private int next;

  /** Adds an image; returns its id. Its bytes are taken from the disk's free space. */
  public synchronized String add(long size, String... tags) {
    String id = "sha256:" + String.format("%064x", ++next);
    images.put(id, new Image(id, List.of(tags), size));
    available -= size;
    return id;
  }

  /** A container that uses the image (running or not: both count); returns its name. */
  public synchronized String use(String imageId) {
    String container = "c" + (++next);
    users.put(container, imageId);
    return container;
  }

  public synchronized void removeContainer(String container) {
    users.remove(container);
  }

  public synchronized void setDisk(long capacityBytes, long availableBytes) {
    capacity = capacityBytes;
    available = availableBytes;
  }

  /** The next removals of this image fail as the engine's would. */
  public synchronized void failRemoval(String id) {
    failing.add(id);
  }

  /** The ids removed, in order. */
  public synchronized List<String> removed() {
    return List.copyOf(removed);
  }

  @Override
  public synchronized List<Image> images() {
    return List.copyOf(images.values());
  }

  @Override
  public synchronized Set<String> imagesInUse() {
    return Set.copyOf(users.values());
  }

  @Override
  public synchronized Optional<String> imageId(String reference) {
    if (images.containsKey(reference)) {
      return Optional.of(reference);
    }
    return images.values().stream()
        .filter(i -> i.repoTags().contains(reference))
        .map(Image::id)
        .findFirst();
  }

  @Override
  public synchronized void removeImage(String id) {
    Image image = images.get(id);
    if (image == null) {
      return;
    }
    if (failing.contains(id)) {
      throw new RuntimeError(RuntimeError.Kind.UNAVAILABLE, "cannot remove " + id);
    }
    if (users.containsValue(id)) {
      throw new RuntimeError(RuntimeError.Kind.OTHER, "image " + id + " is in use by a container");
    }
    images.remove(id);
    removed.add(id);
    available += image.sizeBytes();
  }

  @Override
  public synchronized FsUsage imageFsUsage() {
    return new FsUsage(capacity, available);
  }
}
