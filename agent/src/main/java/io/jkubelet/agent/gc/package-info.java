/**
 * Garbage collection and housekeeping: {@link io.jkubelet.agent.gc.Housekeeping} kills and removes
 * pods that are no longer desired and their directories, and runs its {@link
 * io.jkubelet.agent.gc.ContainerGc} (dead containers and sandboxes, by the operator's policy);
 * {@link io.jkubelet.agent.gc.ImageGcManager} deletes unused images when the image file system
 * fills; {@link io.jkubelet.agent.gc.Housekeeping#reclaimed} tells when a deleted pod has nothing
 * left on the node. Each is made by its interface's factory; the implementations are
 * package-private.
 */
package io.jkubelet.agent.gc;
