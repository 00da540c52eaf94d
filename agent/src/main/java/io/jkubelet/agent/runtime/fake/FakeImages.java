package io.jkubelet.agent.runtime.fake;

import io.jkubelet.agent.runtime.ImageSummary;
import io.jkubelet.agent.runtime.RegistryAuth;
import io.jkubelet.agent.runtime.RuntimeError;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The images of a {@link FakeRuntime} and its fake registry. Not thread-safe by itself: guarded by
 * the fake runtime's monitor, which every caller holds.
 */
final class FakeImages {
  private final Set<String> images = new HashSet<>();
  private final Map<String, String> users = new HashMap<>();
  private final Map<String, RegistryAuth> registry = new HashMap<>();

  /** Whether every image pulls, as kubemark's fake engine: a hollow node's. */
  boolean pullsAnyImage;

  FakeImages(List<String> present) {
    images.addAll(present);
  }

  void add(String image) {
    images.add(image);
  }

  void add(String image, String user) {
    images.add(image);
    users.put(image, user);
  }

  boolean present(String image) {
    return images.contains(image);
  }

  List<ImageSummary> list() {
    return images.stream()
        .sorted()
        .map(i -> new ImageSummary(List.of(i), FakeRuntime.FAKE_IMAGE_BYTES + i.length()))
        .toList();
  }

  String user(String image) {
    if (!images.contains(image)) {
      throw new RuntimeError(RuntimeError.Kind.NOT_FOUND, "No such image: " + image);
    }
    return users.getOrDefault(image, "");
  }

  void addToRegistry(String image, RegistryAuth required) {
    registry.put(image, required);
  }

  /** Gets the image from the registry if the credential is the one it wants. */
  void pull(String image, RegistryAuth auth) {
    if (pullsAnyImage) {
      images.add(image);
      return;
    }
    RegistryAuth required = registry.get(image);
    if (required == null) {
      throw new RuntimeError(RuntimeError.Kind.IMAGE_PULL, "fake registry has no " + image);
    }
    if (!required.anonymous()
        && !(required.username().equals(auth.username())
            && required.password().equals(auth.password()))) {
      throw new RuntimeError(
          RuntimeError.Kind.IMAGE_PULL,
          "Error response from daemon: unauthorized: authentication required");
    }
    images.add(image);
  }
}
