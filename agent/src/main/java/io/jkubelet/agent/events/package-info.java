/**
 * The event recorder: what happened to a pod or the node, with upstream reasons and messages,
 * recorded without blocking ({@link io.jkubelet.agent.events.BroadcastRecorder}) and fanned out by
 * the {@link io.jkubelet.agent.events.EventBroadcaster} to the API server ({@link
 * io.jkubelet.agent.events.ApiEventSink}), the log ({@link io.jkubelet.agent.events.LogSink}) and,
 * in standalone mode, memory ({@link io.jkubelet.agent.events.EventStore}). Before a sink writes,
 * the {@link io.jkubelet.agent.events.EventCorrelator} aggregates, deduplicates and rate-limits
 * events, counting what it did by {@link io.jkubelet.agent.events.CorrelatorStats.Cause}.
 */
package io.jkubelet.agent.events;
