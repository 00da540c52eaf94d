/**
 * Pod sources (file, HTTP, API server) and their per-source semantic merge into one stream of
 * {@link io.jkubelet.agent.podconfig.PodUpdate}s.
 */
package io.jkubelet.agent.podconfig;
