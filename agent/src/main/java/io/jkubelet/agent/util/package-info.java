/** Small shared mechanisms: backoff, channels, jitter and lifecycle. */
package io.jkubelet.agent.util;
