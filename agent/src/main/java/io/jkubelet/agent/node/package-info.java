/**
 * The node in cluster mode: registers the Node with the API server, reports its status, and renews
 * its Lease in {@code kube-node-lease}.
 */
package io.jkubelet.agent.node;
