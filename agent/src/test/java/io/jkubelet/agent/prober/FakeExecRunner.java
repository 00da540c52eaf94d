package io.jkubelet.agent.prober;

import io.jkubelet.agent.runtime.ExecResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** A hand-written {@link ExecRunner} that records calls and returns a settable result. */
final class FakeExecRunner implements ExecRunner {
  record Call(String containerId, List<String> command, Duration timeout) {}

  private final List<Call> calls = new ArrayList<>();
  private volatile ExecResult result = new ExecResult(0, "ok", false);
  private volatile RuntimeException error;

  void setResult(ExecResult result) {
    this.result = result;
    this.error = null;
  }

  void succeed() {
    setResult(new ExecResult(0, "ok", false));
  }

  void fail() {
    setResult(new ExecResult(1, "boom", false));
  }

  void setError(RuntimeException error) {
    this.error = error;
  }

  synchronized List<Call> calls() {
    return List.copyOf(calls);
  }

  @Override
  public ExecResult exec(String containerId, List<String> command, Duration timeout) {
    synchronized (this) {
      calls.add(new Call(containerId, command, timeout));
    }
    if (error != null) {
      throw error;
    }
    return result;
  }
}
