package io.jkubelet.agent.runtime.docker;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * Small images of a test's own, made with the {@code docker} client: {@link #importTiny} imports a
 * tarball of one file of random bytes (so each image has a layer of its own), labelled with the
 * test's label, and {@link #removeLabelled} removes only the images carrying that label.
 */
public final class TestImages {
  private TestImages() {}

  /**
   * Imports an image of {@code bytes} random bytes with the label and tags; returns its id. The
   * first tag names it; the others are added with {@code docker tag}.
   */
  public static String importTiny(String label, int bytes, String... tags)
      throws IOException, InterruptedException {
    Path dir = Files.createTempDirectory("jkubelet-image");
    try {
      byte[] data = new byte[bytes];
      new Random().nextBytes(data);
      Files.write(dir.resolve("data"), data);
      Path tar = dir.resolve("image.tar");
      run("tar", "-C", dir.toString(), "-cf", tar.toString(), "data");
      String id =
          run("docker", "import", "--change", "LABEL " + label, tar.toString(), tags[0]).strip();
      for (int i = 1; i < tags.length; i++) {
        run("docker", "tag", tags[0], tags[i]);
      }
      return id;
    } finally {
      try (var s = Files.walk(dir)) {
        s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /** A new image built on {@code base} with the label only (its layers are the base's). */
  public static String derived(String base, String label, String tag)
      throws IOException, InterruptedException {
    String dockerfile = "FROM " + base + "\nLABEL " + label + "\n";
    Process p =
        new ProcessBuilder("docker", "build", "-q", "-t", tag, "-")
            .redirectErrorStream(true)
            .start();
    p.getOutputStream().write(dockerfile.getBytes(StandardCharsets.UTF_8));
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(2, TimeUnit.MINUTES) || p.exitValue() != 0) {
      throw new IOException("docker build failed: " + out);
    }
    return run("docker", "image", "inspect", "-f", "{{.Id}}", tag).strip();
  }

  /** Removes every image with the label (key=value), forcing: only a test's own images. */
  public static void removeLabelled(String label) throws IOException, InterruptedException {
    String ids = run("docker", "images", "-q", "--no-trunc", "--filter", "label=" + label);
    for (String id : ids.strip().lines().distinct().toList()) {
      if (!id.isBlank()) {
        runQuietly("docker", "rmi", "-f", id);
      }
    }
  }

  /** Runs a command; its standard output; a non-zero exit is an exception with its output. */
  public static String run(String... command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(false).start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(2, TimeUnit.MINUTES) || p.exitValue() != 0) {
      throw new IOException(String.join(" ", command) + " failed: " + out + err);
    }
    return out;
  }

  private static void runQuietly(String... command) throws InterruptedException {
    try {
      run(command);
    } catch (IOException e) {
      // already gone
    }
  }
}
