package io.jkubelet.agent.runtime.docker;

import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.model.Frame;
import com.github.dockerjava.api.model.StreamType;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.nio.charset.StandardCharsets;

/**
 * Collects an exec's stdout and stderr (and a TTY's raw stream) in arrival order, up to a cap, and
 * the first failure. It does not let docker-java's {@code onError} log at ERROR: the caller is told
 * and decides how loud to be.
 *
 * <p>Thread-safe: {@code this} guards {@code kept} and {@code discarded}; the flags are volatile.
 */
final class ExecCallback extends ResultCallback.Adapter<Frame> {
  private final int cap;
  private final ByteArrayOutputStream kept = new ByteArrayOutputStream(256);
  private long discarded;
  private volatile boolean abandoned;
  private volatile Throwable failure;

  /** Keeps at most {@code cap} bytes. */
  ExecCallback(int cap) {
    this.cap = cap;
  }

  @Override
  public void onStart(Closeable stream) {
    super.onStart(stream);
    if (abandoned) {
      DockerClients.closeQuietly(this); // the caller gave up before the engine answered
    }
  }

  @Override
  public void onNext(Frame frame) {
    if (frame == null || frame.getPayload() == null) {
      return;
    }
    StreamType type = frame.getStreamType();
    if (type == StreamType.STDOUT || type == StreamType.STDERR || type == StreamType.RAW) {
      append(frame.getPayload());
    }
  }

  @Override
  public void onError(Throwable throwable) {
    if (failure == null && !abandoned) {
      failure = throwable; // once abandoned, a failure is only the stream being closed
    }
    DockerClients.closeQuietly(this); // completes the callback: awaitCompletion returns
  }

  /** Stops reading: closes the stream, now or as soon as it opens. */
  void abandon() {
    abandoned = true;
    DockerClients.closeQuietly(this);
  }

  /** The first failure of the stream, or null. */
  Throwable failure() {
    return failure;
  }

  synchronized void append(byte[] payload) {
    int keep = Math.min(payload.length, cap - kept.size());
    kept.write(payload, 0, keep);
    discarded += payload.length - keep;
  }

  /** How many bytes were read past the cap. */
  synchronized long discarded() {
    return discarded;
  }

  /** What was kept, as UTF-8; a character cut at the cap becomes U+FFFD. */
  synchronized String output() {
    return kept.toString(StandardCharsets.UTF_8);
  }
}
