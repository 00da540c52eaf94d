package io.jkubelet.agent.runtime.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.model.Frame;
import io.jkubelet.agent.runtime.ContainerStatus;
import io.jkubelet.agent.runtime.Labels;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An exited container's termination message, as upstream's {@code getPodContainerStatuses}: the end
 * of the file mounted at its {@code terminationMessagePath} (at most 4096 bytes), or, with {@code
 * FallbackToLogsOnError} and a failure (a non-zero exit that is not {@code ContainerCannotRun})
 * when that file is empty or missing, the end of its log (the last 80 lines, at most 2048 bytes).
 * The message follows the runtime's own, after ": ".
 *
 * <p>An exited container's message never changes, so it is read once and kept by container id (the
 * cache is dropped when it grows large). Thread-safe: the cache is concurrent.
 */
final class TerminationMessages {
  private static final Logger log = LoggerFactory.getLogger(TerminationMessages.class);

  static final int MAX_FILE_BYTES = 4096;
  static final int MAX_LOG_BYTES = 2048;
  static final int MAX_LOG_LINES = 80;
  static final String FALLBACK_TO_LOGS_ON_ERROR = "FallbackToLogsOnError";
  private static final int CACHE_MAX = 1000;
  private static final long LOG_TIMEOUT_SECONDS = 10;

  private final DockerClient api;
  private final Map<String, String> cache = new ConcurrentHashMap<>();

  TerminationMessages(DockerClient api) {
    this.api = api;
  }

  /** The status with its termination message, when it has exited and has one. */
  ContainerStatus complete(ContainerStatus s, Inspected r) {
    if (!s.exited()) {
      return s;
    }
    String message = cache.get(s.id());
    if (message == null) {
      if (cache.size() > CACHE_MAX) {
        cache.clear();
      }
      message = read(s, r.mounts());
      cache.put(s.id(), message);
    }
    if (message.isEmpty()) {
      return s;
    }
    return s.withMessage(s.message().isEmpty() ? message : s.message() + ": " + message);
  }

  private String read(ContainerStatus s, List<Inspected.Mount> mounts) {
    String path = s.labels().getOrDefault(Labels.TERMINATION_MESSAGE_PATH, "");
    boolean fallback =
        FALLBACK_TO_LOGS_ON_ERROR.equals(s.labels().get(Labels.TERMINATION_MESSAGE_POLICY))
            && s.exitCode() != 0
            && !"ContainerCannotRun".equals(s.reason());
    Optional<String> host = path.isEmpty() ? Optional.empty() : hostPath(mounts, path);
    if (host.isPresent()) {
      try {
        String data = tail(Path.of(host.get()), MAX_FILE_BYTES);
        if (!data.isEmpty() || !fallback) {
          return data;
        }
      } catch (NoSuchFileException e) {
        // as a missing mount: the logs, if the policy says so
      } catch (IOException e) {
        return "Error on reading termination log " + host.get() + ": " + e.getMessage();
      }
    }
    return fallback ? logTail(s.id()) : "";
  }

  private static Optional<String> hostPath(List<Inspected.Mount> mounts, String containerPath) {
    return mounts.stream()
        .filter(m -> containerPath.equals(m.destination()) && m.source() != null)
        .map(Inspected.Mount::source)
        .findFirst();
  }

  /** The last {@code max} bytes of the file, as upstream's {@code tail.ReadAtMost}. */
  static String tail(Path file, int max) throws IOException {
    if (!Files.exists(file)) {
      throw new NoSuchFileException(file.toString());
    }
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
      long size = f.length();
      int n = (int) Math.min(size, max);
      byte[] buf = new byte[n];
      f.seek(size - n);
      f.readFully(buf);
      return new String(buf, StandardCharsets.UTF_8);
    }
  }

  /** The last lines of the container's log, at most {@link #MAX_LOG_BYTES} of their end. */
  private String logTail(String containerId) {
    LogCallback callback = new LogCallback();
    try {
      api.logContainerCmd(containerId)
          .withStdOut(true)
          .withStdErr(true)
          .withTail(MAX_LOG_LINES)
          .exec(callback);
      if (!callback.awaitCompletion(LOG_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        log.debug("DockerRuntime: reading the log of {} timed out", containerId);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      return "Error on reading termination message from logs: " + DockerErrors.failureMessage(e);
    } finally {
      DockerClients.closeQuietly(callback);
    }
    byte[] all = callback.out.toByteArray();
    int from = Math.max(0, all.length - MAX_LOG_BYTES);
    return new String(all, from, all.length - from, StandardCharsets.UTF_8);
  }

  /** Collects the frames of a log, stdout and stderr interleaved as they came. */
  private static final class LogCallback extends ResultCallback.Adapter<Frame> {
    final ByteArrayOutputStream out = new ByteArrayOutputStream();

    @Override
    public void onNext(Frame frame) {
      if (frame != null && frame.getPayload() != null) {
        synchronized (out) {
          out.writeBytes(frame.getPayload());
        }
      }
    }

    @Override
    public void onError(Throwable throwable) {
      log.debug("DockerRuntime: reading a log failed: {}", throwable.toString());
      DockerClients.closeQuietly(this);
    }
  }
}
