package io.jkubelet.agent.podconfig;

/** Source names, as in the {@code kubernetes.io/config.source} annotation. */
public final class Sources {
  public static final String FILE = "file";
  public static final String HTTP = "http";
  public static final String API = "api";

  private Sources() {}
}
