package io.jkubelet.agent.export;

import java.util.Map;

/**
 * The spool's state, for metrics and logs.
 *
 * @param maxBytes the bound ({@code --event-export-spool-max})
 * @param pendingBytes bytes not yet acknowledged by the server
 * @param pendingRecords documents not yet acknowledged
 * @param segments segment files on disk
 * @param dropped documents dropped over the bound: type ("Normal", "Warning") to (reason to count)
 */
public record SpoolStats(
    long maxBytes,
    long pendingBytes,
    long pendingRecords,
    int segments,
    Map<String, Map<String, Long>> dropped) {}
