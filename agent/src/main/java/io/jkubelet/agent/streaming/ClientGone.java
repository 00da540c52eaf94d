package io.jkubelet.agent.streaming;

import java.util.ArrayList;
import java.util.List;

/**
 * The client's departure, as a one-shot event: actions registered before it run when it happens;
 * actions registered after run at once. Thread-safe ({@code this} guards both fields).
 */
final class ClientGone {
  private final List<Runnable> actions = new ArrayList<>();
  private boolean happened;

  void then(Runnable action) {
    synchronized (this) {
      if (!happened) {
        actions.add(action);
        return;
      }
    }
    action.run();
  }

  void happened() {
    List<Runnable> run;
    synchronized (this) {
      if (happened) {
        return;
      }
      happened = true;
      run = List.copyOf(actions);
      actions.clear();
    }
    run.forEach(Runnable::run);
  }

  synchronized boolean hasHappened() {
    return happened;
  }
}
