/**
 * Why a pod being deleted is not gone yet: a Warning {@code TerminationStuck} that names what holds
 * it (a container, a preStop hook, a volume, a runtime call), repeated while it stays, and the same
 * on {@code /pods}.
 */
package io.jkubelet.agent.terminating;
