/**
 * The pod lifecycle event generator: relists the runtime, turns differences into events, and keeps
 * the pod cache that workers wait on. Relists run on a scheduler from the injected {@link
 * io.jkubelet.agent.util.Schedulers}.
 */
package io.jkubelet.agent.pleg;
