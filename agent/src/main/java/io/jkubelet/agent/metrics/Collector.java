package io.jkubelet.agent.metrics;

import java.util.List;

/**
 * What a scrape reads from one part of the agent: its metric families, made anew at every scrape on
 * the scraping thread (cheap and thread-safe, as the scrape reads live state).
 */
@FunctionalInterface
public interface Collector {
  /** This scrape's families; one without series is left out of the text. */
  List<Family> collect();
}
