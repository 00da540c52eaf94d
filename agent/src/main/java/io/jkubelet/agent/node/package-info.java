/**
 * The node in cluster mode: registers the Node with the API server, reports its status, and renews
 * its Lease in {@code kube-node-lease}.
 *
 * <p>The edge is {@link io.jkubelet.agent.node.NodeStatusManager}, made from {@link
 * io.jkubelet.agent.node.NodeOptions} and an injected {@link io.jkubelet.agent.util.Time}; behind
 * it, one coordinator runs {@code NodeRegistration}, {@code NodeLease} and {@code NodeStatusSync}
 * on one scheduler.
 */
package io.jkubelet.agent.node;
