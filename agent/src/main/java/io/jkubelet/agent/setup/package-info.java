/**
 * What the agent is built from: the options that {@code cli} parsed ({@link
 * io.jkubelet.agent.setup.KubeletOptions}) and what reaches outside the process ({@link
 * io.jkubelet.agent.setup.Dependencies}: time, the host's facts, the engine and its cgroups).
 */
package io.jkubelet.agent.setup;
