package io.jkubelet.agent.client;

import io.fabric8.kubernetes.client.OAuthTokenProvider;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bearer token of a kubeconfig user's {@code tokenFile}, as client-go's cached file token
 * source: read again at most once a {@link #REREAD}, so that a rotated token is picked up. A file
 * that can no longer be read keeps the last token, with a warning. fabric8's kubeconfig support
 * ignores {@code tokenFile}; every API client asks this for each request.
 *
 * <p>Thread-safe.
 */
final class TokenFile implements OAuthTokenProvider {
  private static final Logger log = LoggerFactory.getLogger(TokenFile.class);

  /** How long a token read is used before the file is read again; client-go's minute. */
  static final Duration REREAD = Duration.ofMinutes(1);

  private final Path file;
  private final Clock clock;
  private String token;
  private Instant readAt;
  private boolean failing;

  private TokenFile(Path file, Clock clock, String token) {
    this.file = file;
    this.clock = clock;
    this.token = token;
    this.readAt = clock.instant();
  }

  /**
   * Reads the token now.
   *
   * @throws IOException when the file cannot be read or holds no token
   */
  static TokenFile open(Path file, Clock clock) throws IOException {
    return new TokenFile(
        Objects.requireNonNull(file, "file"), Objects.requireNonNull(clock, "clock"), read(file));
  }

  @Override
  public synchronized String getToken() {
    Instant now = clock.instant();
    if (now.isBefore(readAt.plus(REREAD))) {
      return token;
    }
    readAt = now;
    try {
      token = read(file);
      if (failing) {
        log.info("API clients: the token file {} is readable again", file);
        failing = false;
      }
    } catch (IOException e) {
      if (!failing) {
        log.warn("API clients: cannot read the token file {} ({}); using the last token", file, e);
        failing = true;
      }
    }
    return token;
  }

  private static String read(Path file) throws IOException {
    String t = Files.readString(file, StandardCharsets.UTF_8).strip();
    if (t.isEmpty()) {
      throw new IOException(file + " holds no token");
    }
    return t;
  }
}
