package io.jkubelet.agent.credentials;

/** Image references as the keyring looks them up. Pure functions. */
public final class ImageNames {
  private ImageNames() {}

  /**
   * The repository of an image, normalized as Docker's {@code ParseNormalizedNamed(...).Name()}
   * (which upstream's {@code PullImage} looks credentials up with): without tag or digest, with
   * {@code docker.io} for an image with no registry part and {@code library/} for a Docker Hub
   * image with no user part: {@code busybox:1.35} is {@code docker.io/library/busybox}, {@code
   * registry:5000/app@sha256:...} is {@code registry:5000/app}.
   */
  public static String repository(String image) {
    String name = image;
    int at = name.indexOf('@');
    if (at >= 0) {
      name = name.substring(0, at);
    }
    int colon = name.lastIndexOf(':');
    if (colon > name.lastIndexOf('/')) {
      name = name.substring(0, colon);
    }
    int slash = name.indexOf('/');
    String domain;
    String remainder;
    String first = slash < 0 ? "" : name.substring(0, slash);
    if (slash < 0
        || (first.indexOf('.') < 0 && first.indexOf(':') < 0 && !first.equals("localhost"))) {
      domain = "docker.io";
      remainder = name;
    } else {
      domain = first;
      remainder = name.substring(slash + 1);
    }
    if (domain.equals("index.docker.io")) {
      domain = "docker.io";
    }
    if (domain.equals("docker.io") && remainder.indexOf('/') < 0) {
      remainder = "library/" + remainder;
    }
    return domain + "/" + remainder;
  }
}
