package io.jkubelet.agent.streaming;

import io.jkubelet.agent.runtime.StreamHandle;
import java.io.InputStream;
import java.io.OutputStream;

/** Where a port-forward goes: one pod's sandbox, through the runtime. */
interface PortForwardTarget {

  /** The sandbox's id, as upstream names it in its error messages. */
  String sandboxId();

  /** Starts forwarding one connection to {@code port}; see {@code Runtime.portForward}. */
  StreamHandle forward(int port, InputStream in, OutputStream out);
}
