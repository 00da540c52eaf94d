package io.jkubelet.agent.runtime.fake;

import io.jkubelet.agent.runtime.ContainerState;
import io.jkubelet.agent.runtime.ExecResult;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.runtime.StreamHandle;
import io.jkubelet.agent.runtime.StreamIo;
import io.jkubelet.agent.runtime.TerminalSize;
import io.jkubelet.agent.runtime.fake.FakeRuntime.PortServer;
import io.jkubelet.agent.runtime.fake.FakeRuntime.StreamProgram;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.BiFunction;

/**
 * Exec and the streams of a {@link FakeRuntime}: exec with a result, interactive exec, attach and
 * port forwarding. Guarded by the fake runtime's monitor ({@code owner}), as its containers are;
 * the programs run outside it (an exec's hook on the caller's thread, a stream's on a virtual
 * thread of its own).
 */
final class FakeStreams {
  private final FakeRuntime owner;
  private final Clock clock;
  private BiFunction<FakeContainer, List<String>, ExecResult> onExec =
      (c, cmd) -> new ExecResult(0, "", false);
  private StreamProgram onExecStream = FakeRuntime::cat;
  private final Map<Integer, PortServer> ports = new HashMap<>();
  private final Set<FakeStream> open = new HashSet<>();
  private final List<String> resizes = new ArrayList<>();

  FakeStreams(FakeRuntime owner, Clock clock) {
    this.owner = owner;
    this.clock = clock;
  }

  // --- controls, with the owner's lock held ---

  void onExec(BiFunction<FakeContainer, List<String>, ExecResult> f) {
    onExec = f;
  }

  void onExecStream(StreamProgram p) {
    onExecStream = p;
  }

  void listen(int port, PortServer server) {
    ports.put(port, server);
  }

  int open() {
    return open.size();
  }

  List<String> resizes() {
    return List.copyOf(resizes);
  }

  // --- the runtime's calls ---

  /** See {@link FakeRuntime#exec}. */
  ExecResult exec(String containerId, List<String> command, Duration timeout) {
    BiFunction<FakeContainer, List<String>, ExecResult> f;
    FakeContainer c;
    synchronized (owner) {
      owner.call("exec", containerId + " " + String.join(" ", command));
      c = owner.found(containerId);
      if (c.state != ContainerState.RUNNING) {
        throw new RuntimeError(
            RuntimeError.Kind.OTHER, "container " + containerId + " is not running");
      }
      f = onExec;
    }
    Instant start = clock.instant();
    ExecResult result =
        f.apply(c, command); // outside the lock: a hook may wait, as a real one would
    String output = capped(result.output());
    boolean bounded = timeout != null && timeout.isPositive();
    if (result.timedOut()
        || bounded && Duration.between(start, clock.instant()).compareTo(timeout) > 0) {
      return ExecResult.timeout(output);
    }
    return new ExecResult(result.exitCode(), output, false);
  }

  private static String capped(String output) {
    byte[] bytes = output.getBytes(StandardCharsets.UTF_8);
    if (bytes.length <= FakeRuntime.MAX_EXEC_OUTPUT_BYTES) {
      return output;
    }
    return new String(bytes, 0, FakeRuntime.MAX_EXEC_OUTPUT_BYTES, StandardCharsets.UTF_8);
  }

  private FakeContainer running(String containerId) {
    FakeContainer c = owner.found(containerId);
    if (c.state != ContainerState.RUNNING) {
      throw new RuntimeError(
          RuntimeError.Kind.OTHER, "container not running (" + containerId + ")");
    }
    return c;
  }

  StreamHandle execStream(String containerId, List<String> command, StreamIo io) {
    FakeContainer c;
    StreamProgram p;
    synchronized (owner) {
      owner.call("execStream", containerId + " " + String.join(" ", command));
      c = running(containerId);
      p = onExecStream;
    }
    return new FakeStream(containerId, () -> p.run(c, command, io)).start();
  }

  StreamHandle attach(String containerId) {
    synchronized (owner) {
      owner.call("attach", containerId);
      running(containerId);
    }
    return new FakeStream(
            containerId,
            () -> {
              synchronized (owner) {
                while (owner.runs(containerId)) {
                  owner.wait();
                }
              }
              return StreamHandle.NO_EXIT_CODE;
            })
        .start();
  }

  StreamHandle portForward(String sandboxId, int port, InputStream in, OutputStream out) {
    PortServer server;
    synchronized (owner) {
      owner.call("portForward", sandboxId + " " + port);
      running(sandboxId);
      server = ports.get(port);
    }
    return new FakeStream(
            sandboxId,
            () -> {
              if (server == null) {
                throw new RuntimeError(
                    RuntimeError.Kind.OTHER,
                    "connect to 127.0.0.1:"
                        + port
                        + " in the pod's network namespace:"
                        + " Connection refused");
              }
              server.serve(in, out);
              return StreamHandle.NO_EXIT_CODE;
            })
        .start();
  }

  /**
   * A fake stream: the program on a virtual thread; close interrupts it, and a client's stream that
   * fails (an IOException) aborts it, as a runtime's does.
   */
  private final class FakeStream implements StreamHandle {
    private final String containerId;
    private final Callable<Integer> body;
    private final CompletableFuture<Integer> result = new CompletableFuture<>();
    private volatile Thread thread;
    private volatile boolean aborted;

    FakeStream(String containerId, Callable<Integer> body) {
      this.containerId = containerId;
      this.body = body;
    }

    FakeStream start() {
      synchronized (owner) {
        open.add(this);
      }
      thread =
          Thread.ofVirtual()
              .start(
                  () -> {
                    try {
                      result.complete(body.call());
                    } catch (IOException e) {
                      // the client's stream failed: it went away, and the stream is aborted
                      aborted = true;
                      result.complete(NO_EXIT_CODE);
                    } catch (Throwable t) {
                      result.completeExceptionally(t);
                    } finally {
                      synchronized (owner) {
                        open.remove(this);
                      }
                    }
                  });
      return this;
    }

    @Override
    public int await() throws InterruptedException {
      try {
        int code = result.get();
        return aborted ? NO_EXIT_CODE : code;
      } catch (ExecutionException e) {
        if (aborted) {
          return NO_EXIT_CODE;
        }
        throw e.getCause() instanceof RuntimeError r
            ? r
            : io.jkubelet.agent.util.Errors.withCause(
                new RuntimeError(RuntimeError.Kind.OTHER, String.valueOf(e.getCause())),
                e.getCause());
      }
    }

    @Override
    public void resize(TerminalSize size) {
      synchronized (owner) {
        resizes.add(containerId + " " + size.width() + "x" + size.height());
      }
    }

    @Override
    public void close() {
      if (!result.isDone()) {
        aborted = true;
        thread.interrupt();
      }
    }
  }
}
