/**
 * The node agent assembled: {@link io.jkubelet.agent.Agent} builds every subsystem from a {@link
 * io.jkubelet.agent.Setup} and runs them; {@link io.jkubelet.agent.Kubelet} is the sync loop's
 * handler.
 */
package io.jkubelet.agent;
