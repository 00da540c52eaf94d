package io.jkubelet.agent.events;

import java.util.Map;

/**
 * STUB: the correlator's drop counts, as agreed; the real record comes from the correlator branch.
 */
public record CorrelatorStats(Map<String, Long> byCause, Map<String, Long> byReason) {}
