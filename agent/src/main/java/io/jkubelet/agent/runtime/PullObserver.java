package io.jkubelet.agent.runtime;

import java.util.function.Consumer;

/**
 * Follows one {@link Runtime#pullImage}: the engine's progress as it streams, and what cancels the
 * pull. Its methods are called on the runtime's threads and must not block.
 */
public interface PullObserver {
  /**
   * The pull was requested; {@code cancel} stops it (closing the engine's stream, which makes the
   * engine drop the pull), and {@link Runtime#pullImage} then throws {@code IMAGE_PULL} with the
   * message given to it. Called once, before any {@link #progress}.
   */
  void started(Consumer<String> cancel);

  /** A message of the engine's progress stream. */
  void progress(PullProgress progress);

  /** An observer that ignores everything. */
  PullObserver NONE =
      new PullObserver() {
        @Override
        public void started(Consumer<String> cancel) {}

        @Override
        public void progress(PullProgress progress) {}
      };
}
