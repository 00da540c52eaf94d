package io.jkubelet.agent.streaming;

import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.runtime.StreamHandle;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a port-forward goes: one pod's sandbox, through the runtime ({@code Runtime.portForward}).
 * {@link #serve} is what both protocols do with one forwarded connection.
 *
 * @param sandboxId the sandbox's id, as upstream names it in its error messages
 * @param forwarder starts forwarding one connection to a port
 */
record PortForwardTarget(String sandboxId, Forwarder forwarder) {
  private static final Logger log = LoggerFactory.getLogger(PortForwardTarget.class);

  /** Starts forwarding one connection to {@code port}; see {@code Runtime.portForward}. */
  @FunctionalInterface
  interface Forwarder {
    StreamHandle forward(int port, InputStream in, OutputStream out);
  }

  /**
   * Joins {@code in} and {@code out} to {@code port} in the pod until the forward ends; the
   * client's departure closes it. A runtime failure is logged and its message, worded as
   * upstream's, goes to {@code failed}. Nobody reads {@code in} afterwards: it is discarded.
   */
  void serve(int port, InboundBytes in, OutputStream out, ClientGone gone, Consumer<byte[]> failed)
      throws InterruptedException {
    StreamHandle handle = null;
    try {
      handle = forwarder.forward(port, in, out);
      StreamHandle h = handle;
      gone.then(() -> Thread.ofVirtual().name("port-forward-close").start(h::close));
      handle.await();
    } catch (RuntimeError e) {
      String msg =
          "error forwarding port " + port + " to pod " + sandboxId + ", uid : " + e.getMessage();
      log.info("Streaming: {}", msg);
      failed.accept(msg.getBytes(StandardCharsets.UTF_8));
    } finally {
      if (handle != null) {
        handle.close();
      }
      in.discard();
    }
  }
}
