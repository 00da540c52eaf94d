package io.jkubelet.agent.stats;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jkubelet.agent.runtime.PodStatus;
import java.time.Clock;
import java.util.Collection;
import java.util.function.Supplier;

/**
 * The node's resource usage for {@code /stats/summary} and {@code /metrics/resource}, as upstream's
 * {@code stats.SummaryProvider}.
 */
public interface SummaryProvider {
  /** The summary now, or one computed at most the options' TTL ago. Never throws for bad files. */
  Summary summary();

  /**
   * A summary read now, never the cached one, with every directory's disk usage measured at most
   * {@code diskMaxAge} ago (at most the usual minute): what the eviction manager ranks pods by.
   */
  Summary fresh(java.time.Duration diskMaxAge);

  /**
   * Reads cgroups and proc as the options say.
   *
   * @param pods the runtime's view of each pod (the PLEG's cache): which sandboxes and containers
   *     run, with their ids and start times
   */
  static SummaryProvider create(
      StatsOptions options, Supplier<Collection<PodStatus>> pods, Clock clock) {
    return create(options, NodeReader.create(options, clock), pods, clock);
  }

  /**
   * As {@link #create(StatsOptions, Supplier, Clock)}, with the node's memory, file systems,
   * processes and {@code pods} system container from {@code node}'s latest reading, the one the
   * eviction manager reads through: the summary shows what eviction decided on.
   */
  static SummaryProvider create(
      StatsOptions options, NodeReader node, Supplier<Collection<PodStatus>> pods, Clock clock) {
    return new CgroupSummaryProvider(options, node, pods, clock);
  }

  /** The summary as upstream's JSON. */
  static byte[] json(Summary summary) {
    try {
      return Json.MAPPER.writeValueAsBytes(summary);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write the summary as JSON", e);
    }
  }

  /** The mapper, made once. */
  final class Json {
    static final ObjectMapper MAPPER = new ObjectMapper();

    private Json() {}
  }
}
