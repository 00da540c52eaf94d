package io.jkubelet.agent.runtime;

import java.io.InputStream;
import java.io.OutputStream;

/**
 * The client's ends of an interactive exec or attach, as the CRI's {@code Exec} and {@code Attach}
 * requests carry them. A null stream was not asked for. With a TTY, the terminal merges stderr into
 * stdout, so {@code stderr} is ignored.
 *
 * <p>The runtime reads {@code stdin} until its end (which it passes on to the process as an end of
 * input) and writes to {@code stdout} and {@code stderr} from its own threads; a write that throws
 * (the client went away) ends the stream as {@link StreamHandle#close} would.
 */
public record StreamIo(InputStream stdin, OutputStream stdout, OutputStream stderr, boolean tty) {
  public StreamIo {
    if (stdin == null && stdout == null && stderr == null) {
      throw new IllegalArgumentException("at least one of stdin, stdout and stderr is required");
    }
  }
}
