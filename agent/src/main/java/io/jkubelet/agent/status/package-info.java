/**
 * Pod status: generating the API status from the runtime's view, keeping it per pod, and (in
 * cluster mode) writing it to the API server.
 *
 * <p>The edge is {@link io.jkubelet.agent.status.StatusManager}: {@link
 * io.jkubelet.agent.status.LocalStatusManager} in standalone mode, {@link
 * io.jkubelet.agent.status.ApiStatusManager} in cluster mode. Both keep statuses in one {@code
 * StatusCache}, which applies the same transition rules (a terminal phase is kept, a terminated
 * container never comes back), so both modes report the same status for a pod. {@link
 * io.jkubelet.agent.status.StatusGenerator} makes a status from the runtime's view.
 */
package io.jkubelet.agent.status;
