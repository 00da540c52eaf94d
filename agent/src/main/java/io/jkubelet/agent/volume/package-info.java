/**
 * Pod volumes on the host, as upstream's volume plugins and volume manager: {@link
 * io.jkubelet.agent.volume.VolumeManager} at the edge, one plugin per volume kind under {@code
 * <root-dir>/pods/<uid>/volumes/<plugin>/<name>}, the atomic writer, tmpfs mounts, the
 * service-account token manager and fsGroup ownership.
 */
package io.jkubelet.agent.volume;
