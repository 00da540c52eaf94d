package io.jkubelet.agent.gc;

/**
 * Frees disk used by images no container uses, least recently used first (upstream's
 * ImageGCManager). Thread-safe.
 */
public interface ImageGarbageCollector {
  /** One that frees nothing: what the eviction manager reclaims through when image GC is off. */
  ImageGarbageCollector NONE = () -> 0L;

  /** Deletes every image that no container uses and that is old enough; returns the bytes freed. */
  long deleteUnusedImages() throws Exception;
}
