/**
 * The parts the composition root ({@code io.jkubelet.agent.Agent}) builds the agent from, one class
 * per job: the parts that run pods ({@link io.jkubelet.agent.parts.PodParts}), the node's readings
 * and its pressure ({@link io.jkubelet.agent.parts.PressureParts}), from the {@link
 * io.jkubelet.agent.parts.Inputs} the root made first. They build only; the root starts and stops.
 */
package io.jkubelet.agent.parts;
