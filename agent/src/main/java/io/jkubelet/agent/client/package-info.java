/**
 * The API server's clients: the kubeconfig, the one shared HTTP engine with native TLS, and the
 * node's client certificate (TLS bootstrap, rotation) that every client presents.
 */
package io.jkubelet.agent.client;
