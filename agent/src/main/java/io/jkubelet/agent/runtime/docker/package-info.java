/**
 * The {@link io.jkubelet.agent.runtime.Runtime} on a Docker Engine, through docker-java: pod
 * sandboxes are pause containers, app containers join their network and IPC namespaces, and names
 * and labels follow dockershim so that an earlier run's containers can be adopted.
 */
package io.jkubelet.agent.runtime.docker;
