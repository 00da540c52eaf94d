/**
 * Runtime calls under a deadline: a call that hangs for one container is that container's problem,
 * marked on its pod, while the node goes on with every other container and pod.
 */
package io.jkubelet.agent.hung;
