/**
 * The node agent assembled: {@link io.jkubelet.agent.Agent} builds every subsystem from the parsed
 * options and the dependencies ({@code setup}) and runs them in one order; {@link
 * io.jkubelet.agent.Kubelet} is the sync loop's handler.
 */
package io.jkubelet.agent;
