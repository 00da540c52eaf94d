/**
 * Small shared mechanisms: time ({@link io.jkubelet.agent.util.Time}: the clock, the sleeper and
 * the schedulers), backoff, the token bucket, jitter, errors and lifecycle.
 */
package io.jkubelet.agent.util;
