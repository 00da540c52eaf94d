package io.jkubelet.agent.runtime;

/**
 * The credential an image pull presents to the registry, as the CRI's {@code AuthConfig}: a user
 * name and password (or their {@code auth}), or an identity or registry token; {@link #NONE} for an
 * anonymous pull. Null fields are empty. {@link #toString} shows the user name only.
 */
public record RegistryAuth(
    String username,
    String password,
    String auth,
    String serverAddress,
    String identityToken,
    String registryToken) {

  /** An anonymous pull. */
  public static final RegistryAuth NONE = new RegistryAuth("", "", "", "", "", "");

  public RegistryAuth {
    username = username == null ? "" : username;
    password = password == null ? "" : password;
    auth = auth == null ? "" : auth;
    serverAddress = serverAddress == null ? "" : serverAddress;
    identityToken = identityToken == null ? "" : identityToken;
    registryToken = registryToken == null ? "" : registryToken;
  }

  /** A user name and password. */
  public static RegistryAuth basic(String username, String password) {
    return new RegistryAuth(username, password, "", "", "", "");
  }

  /** Whether this is an anonymous pull. */
  public boolean anonymous() {
    return equals(NONE);
  }

  @Override
  public String toString() {
    return anonymous() ? "RegistryAuth[anonymous]" : "RegistryAuth[username=" + username + "]";
  }
}
