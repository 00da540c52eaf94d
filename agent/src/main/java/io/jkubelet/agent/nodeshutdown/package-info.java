/**
 * Graceful node shutdown, as upstream's {@code pkg/kubelet/nodeshutdown}: a logind delay inhibitor
 * held while the node runs, and on logind's {@code PrepareForShutdown} the node NotReady, new pods
 * refused and the running ones stopped, critical ones last, with their final status written before
 * the lock is let go; {@link io.jkubelet.agent.nodeshutdown.NodeShutdownManager} is its edge and
 * {@link io.jkubelet.agent.nodeshutdown.Logind} its view of systemd-logind.
 */
package io.jkubelet.agent.nodeshutdown;
