package io.jkubelet.agent.streaming;

import io.jkubelet.agent.runtime.TerminalSize;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.function.Consumer;

/**
 * The client's side of one exec or attach, whatever the protocol (SPDY or WebSocket) and its
 * version: the streams it asked for (null when not), the terminal sizes it sends, and the one
 * status that ends the session. This is the seam between the protocols and {@link RemoteCommand}.
 *
 * <p>Implementations are thread-safe; {@link #finish} is called once.
 */
interface RemoteCommandStreams {

  /** What the client types; null without stdin. */
  InputStream stdin();

  /** Null without stdout. */
  OutputStream stdout();

  /** Null without stderr (always with a TTY). */
  OutputStream stderr();

  boolean tty();

  /** Calls {@code listener} with each size from the resize stream, on a thread of its own. */
  void onResize(Consumer<TerminalSize> listener);

  /** Runs {@code action} once if the client goes away before {@link #finish} (at once if gone). */
  void onClientGone(Runnable action);

  /** Sends the status (as the protocol version says), ends every stream and the connection. */
  void finish(ExecStatus status);
}
