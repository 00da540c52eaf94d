/**
 * Per-pod workers: one sync at a time per pod, the latest update wins, a pending kill is never
 * overwritten, and each pod moves from syncing to terminating to terminated.
 */
package io.jkubelet.agent.workers;
