package io.jkubelet.agent.client;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Upstream's {@code contentType} ({@code --kube-api-content-type}): accepted as upstream's, any
 * value, but jkubelet's clients speak JSON whatever it says. fabric8 reads and writes JSON only:
 * asking for protobuf in {@code Accept} would bring answers it cannot decode.
 */
public final class ContentType {
  private static final Logger log = LoggerFactory.getLogger(ContentType.class);

  /** What the clients send and accept. */
  public static final String JSON = "application/json";

  private ContentType() {}

  /** Logs, once at start, that JSON is used when the setting asks for anything else. */
  public static void logUsed(String configured) {
    if (!configured.isEmpty() && !configured.equals(JSON)) {
      log.info(
          "API clients: --kube-api-content-type {} is accepted, but requests are sent as {}:"
              + " jkubelet's client (fabric8) reads and writes JSON only",
          configured,
          JSON);
    }
  }
}
