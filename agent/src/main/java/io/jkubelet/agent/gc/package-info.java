/**
 * Garbage collection and housekeeping: {@link io.jkubelet.agent.gc.Housekeeping} kills and removes
 * pods that are no longer desired and their directories, and runs {@link
 * io.jkubelet.agent.gc.ContainerGc} (dead containers and sandboxes, by the operator's policy);
 * {@link io.jkubelet.agent.gc.ImageGcManager} deletes unused images when the image file system
 * fills; {@link io.jkubelet.agent.gc.Reclaimed} tells when a deleted pod has nothing left on the
 * node.
 */
package io.jkubelet.agent.gc;
