package io.jkubelet.agent.runtime.docker;

import com.github.dockerjava.api.command.InspectImageResponse;
import com.github.dockerjava.api.model.Container;
import io.jkubelet.agent.runtime.ImageService;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.runtime.RuntimeError.Kind;
import io.jkubelet.agent.util.Errors;
import io.jkubelet.agent.util.StatFs;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link ImageService} on Docker: images from {@code GET /images/json}, their users from every
 * container of the engine ({@code GET /containers/json?all=1}, not limited to jkubelet's labels),
 * removal as dockershim's {@code RemoveImage}, and the usage of the file system under Docker's data
 * root ({@code DockerRootDir}), read with statvfs ({@link StatFs}). Thread-safe (stateless besides
 * the client).
 */
final class DockerImageService implements ImageService {
  private static final Logger log = LoggerFactory.getLogger(DockerImageService.class);

  private final DockerClients clients;
  private final Supplier<Optional<Path>> rootDir;

  DockerImageService(DockerClients clients, Supplier<Optional<Path>> rootDir) {
    this.clients = clients;
    this.rootDir = rootDir;
  }

  @Override
  public List<ImageService.Image> images() {
    try {
      List<ImageService.Image> out = new ArrayList<>();
      for (com.github.dockerjava.api.model.Image i : clients.api().listImagesCmd().exec()) {
        List<String> tags =
            i.getRepoTags() == null
                ? List.of()
                : Arrays.stream(i.getRepoTags()).filter(t -> !t.startsWith("<none>")).toList();
        out.add(new ImageService.Image(i.getId(), tags, i.getSize() == null ? 0 : i.getSize()));
      }
      return out;
    } catch (RuntimeException e) {
      throw DockerErrors.translate(e, null);
    }
  }

  @Override
  public Set<String> imagesInUse() {
    try {
      Set<String> ids = new HashSet<>();
      for (Container c : clients.api().listContainersCmd().withShowAll(true).exec()) {
        if (c.getImageId() != null) {
          ids.add(c.getImageId());
        }
      }
      return ids;
    } catch (RuntimeException e) {
      throw DockerErrors.translate(e, null);
    }
  }

  @Override
  public Optional<String> imageId(String reference) {
    try {
      return Optional.ofNullable(clients.api().inspectImageCmd(reference).exec().getId());
    } catch (RuntimeException e) {
      if (DockerErrors.isNotFound(e)) {
        return Optional.empty();
      }
      throw DockerErrors.translate(e, null);
    }
  }

  /**
   * As dockershim: each tag, each digest, then the id, without force and pruning untagged parents.
   * Before the first tag goes, the engine is asked once more for a container made from the image or
   * a descendant ({@code ancestor} filter): an untag is never refused, so a tag of an image that a
   * container started using since the caller looked would otherwise be lost.
   */
  @Override
  public void removeImage(String id) {
    InspectImageResponse inspected;
    try {
      inspected = clients.api().inspectImageCmd(id).exec();
    } catch (RuntimeException e) {
      if (DockerErrors.isNotFound(e)) {
        return;
      }
      throw DockerErrors.translate(e, null);
    }
    List<Container> users;
    try {
      users =
          clients
              .api()
              .listContainersCmd()
              .withShowAll(true)
              .withAncestorFilter(List.of(id))
              .exec();
    } catch (RuntimeException e) {
      throw DockerErrors.translate(e, null);
    }
    if (!users.isEmpty()) {
      throw new RuntimeError(
          Kind.OTHER,
          "image " + id + " is in use by container " + users.get(0).getId().substring(0, 12));
    }
    List<String> names = new ArrayList<>();
    if (inspected.getRepoTags() != null) {
      names.addAll(inspected.getRepoTags());
    }
    if (inspected.getRepoDigests() != null) {
      names.addAll(inspected.getRepoDigests());
    }
    names.add(id);
    for (String name : names) {
      try {
        clients.api().removeImageCmd(name).withForce(false).withNoPrune(false).exec();
      } catch (RuntimeException e) {
        if (!DockerErrors.isNotFound(e)) {
          throw DockerErrors.translate(e, null);
        }
      }
    }
    log.debug("DockerRuntime: removed image {} ({})", id, names);
  }

  @Override
  public FsUsage imageFsUsage() {
    Path dir =
        rootDir
            .get()
            .orElseThrow(
                () ->
                    new RuntimeError(
                        Kind.UNAVAILABLE, "the engine does not say where it keeps its data"));
    try {
      StatFs fs = StatFs.of(dir);
      return new FsUsage(fs.capacityBytes(), fs.availableBytes());
    } catch (IOException e) {
      throw Errors.withCause(
          new RuntimeError(Kind.OTHER, "cannot read the file system of " + dir + ": " + e), e);
    }
  }
}
