/**
 * Hollow nodes, as upstream's kubemark: what each of many agents in one process is built from (its
 * options and the dependencies that replace the host: the in-memory runtime, fixed machine facts,
 * no cgroups, no network plugin, no ports), sharing the process's timers and HTTP engine.
 */
package io.jkubelet.agent.hollow;
