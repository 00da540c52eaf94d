/**
 * Pod sources (file, HTTP, API server, named by {@link io.jkubelet.agent.podconfig.Source}) and
 * their per-source semantic merge into one stream of {@link
 * io.jkubelet.agent.podconfig.PodUpdate}s. The file and HTTP sources rescan on a scheduler from the
 * injected {@link io.jkubelet.agent.util.Schedulers}.
 */
package io.jkubelet.agent.podconfig;
