package io.jkubelet.agent.runtime.docker;

import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.command.LogContainerCmd;
import com.github.dockerjava.api.model.Frame;
import io.jkubelet.agent.runtime.LogRequest;
import io.jkubelet.agent.runtime.LogSink;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A container's output from the engine's log API ({@code GET /containers/{id}/logs}), stdout and
 * stderr demultiplexed in order. Follows on the long-call client, which has no response timeout.
 */
final class ContainerLogs {
  private final DockerClients clients;

  ContainerLogs(DockerClients clients) {
    this.clients = clients;
  }

  AutoCloseable open(String containerId, LogRequest r, LogSink sink) {
    LogContainerCmd cmd =
        clients
            .longCalls()
            .logContainerCmd(containerId)
            .withStdOut(true)
            .withStdErr(true)
            .withFollowStream(r.follow())
            .withTimestamps(r.timestamps());
    if (r.tailLines().isPresent()) {
      cmd.withTail((int) Math.min(Integer.MAX_VALUE, r.tailLines().getAsLong()));
    }
    r.since().ifPresent(t -> cmd.withSince((int) t.getEpochSecond()));
    Callback cb = new Callback(sink);
    try {
      cmd.exec(cb);
    } catch (RuntimeException e) {
      throw DockerErrors.translate(e, null);
    }
    return cb;
  }

  private static final class Callback extends ResultCallback.Adapter<Frame> {
    private final LogSink sink;
    private final AtomicBoolean ended = new AtomicBoolean();

    Callback(LogSink sink) {
      this.sink = sink;
    }

    @Override
    public void onNext(Frame frame) {
      if (!ended.get()) {
        sink.output(frame.getPayload());
      }
    }

    @Override
    public void onError(Throwable t) {
      if (ended.compareAndSet(false, true)) {
        sink.end(t);
      }
      super.onError(t);
    }

    @Override
    public void onComplete() {
      if (ended.compareAndSet(false, true)) {
        sink.end(null);
      }
      super.onComplete();
    }

    @Override
    public void close() throws IOException {
      ended.set(true);
      super.close();
    }
  }
}
