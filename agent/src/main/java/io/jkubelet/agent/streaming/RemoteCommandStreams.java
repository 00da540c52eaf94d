package io.jkubelet.agent.streaming;

import io.jkubelet.agent.runtime.StreamIo;
import io.jkubelet.agent.runtime.TerminalSize;
import java.util.function.Consumer;

/**
 * The client's side of one exec or attach, whatever the protocol (SPDY or WebSocket) and its
 * version: the streams it asked for, the terminal sizes it sends, its departure, and the one status
 * that ends the session. This is the seam between the protocols and {@link RemoteCommand}.
 *
 * <p>Implementations are thread-safe; {@link #finish} is called once.
 */
interface RemoteCommandStreams {

  /**
   * The streams the client asked for (null when not; stderr null with a TTY) and whether it wants a
   * TTY; throws {@link IllegalArgumentException} when it asked for none.
   */
  StreamIo io();

  /** Calls {@code listener} with each size from the resize stream, on a thread of its own. */
  void onResize(Consumer<TerminalSize> listener);

  /** The client's departure: actions run once if it goes away before {@link #finish}. */
  ClientGone gone();

  /** Sends the status (as the protocol version says), ends every stream and the connection. */
  void finish(ExecStatus status);
}
