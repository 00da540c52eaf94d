package io.jkubelet.agent.runtime;

/** Container IDs as the API status writes them ({@code docker://<id>}) and as the runtime does. */
public final class ContainerIds {
  private static final String SCHEME = "docker://";

  private ContainerIds() {}

  /** A runtime's container ID as the API status shows it: {@code docker://<id>}. */
  public static String api(String runtimeId) {
    return SCHEME + runtimeId;
  }

  /** The runtime's own ID in an API container ID ({@code docker://abc} is {@code abc}), or null. */
  public static String runtime(String apiId) {
    if (apiId == null || apiId.isEmpty()) {
      return null;
    }
    int i = apiId.indexOf("://");
    return i < 0 ? apiId : apiId.substring(i + 3);
  }
}
