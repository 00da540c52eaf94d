package io.jkubelet.agent.util;

import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslProvider;
import org.slf4j.Logger;

/**
 * BoringSSL through Netty's tcnative, for the kubelet server and the API clients: a handshake costs
 * about a millisecond of CPU there, where the JDK's provider took about 28 ms with the launcher's
 * client compiler. Loading the native library takes a second or more on a busy node.
 */
public final class NativeTls {
  private NativeTls() {}

  /**
   * Starts loading the native library in the background, so that its first user does not wait for
   * all of it; called early, it overlaps the agent's set-up. Optional and safe to call more than
   * once.
   */
  public static void preload() {
    Thread.ofVirtual().name("tls-preload").start(OpenSsl::isAvailable);
  }

  /**
   * The provider {@code who} (e.g. "kubelet server") uses: OpenSSL where the native library loads,
   * else the JDK's, which is logged at INFO with the reason.
   */
  public static SslProvider provider(Logger log, String who) {
    if (OpenSsl.isAvailable()) {
      log.debug("{}: TLS by {}", who, OpenSsl.versionString());
      return SslProvider.OPENSSL;
    }
    log.info(
        "{}: TLS by the JDK (Netty's native TLS library did not load: {})",
        who,
        OpenSsl.unavailabilityCause() == null ? "unknown" : OpenSsl.unavailabilityCause());
    return SslProvider.JDK;
  }
}
