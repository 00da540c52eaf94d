/**
 * Garbage collection and housekeeping: {@link io.jkubelet.agent.gc.Housekeeping} kills and removes
 * pods that are no longer desired and their dead containers and directories; {@link
 * io.jkubelet.agent.gc.Reclaimed} tells when a deleted pod has nothing left on the node.
 */
package io.jkubelet.agent.gc;
