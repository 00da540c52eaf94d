package io.jkubelet.agent.credentials;

/**
 * One credential for a registry, as upstream's {@code credentialprovider.AuthConfig} carries it out
 * of a keyring: a user name and password (an {@code auth} field is decoded into them when read),
 * and the e-mail that old config files carry. {@link #toString} leaves the password out.
 */
public record AuthConfig(String username, String password, String email) {
  public AuthConfig {
    username = username == null ? "" : username;
    password = password == null ? "" : password;
    email = email == null ? "" : email;
  }

  @Override
  public String toString() {
    return "AuthConfig[username=" + username + ", password=<redacted>, email=" + email + "]";
  }
}
