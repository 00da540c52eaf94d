/**
 * A container's environment, as upstream's {@code makeEnvironmentVariables}: literal values with
 * {@code $(VAR)} expansion, the downward API ({@code fieldRef}, {@code resourceFieldRef}),
 * ConfigMap and Secret keys, {@code envFrom}, and the service variables. {@link
 * io.jkubelet.agent.env.EnvResolver} is the edge; it reads objects through {@code PodObjects}.
 */
package io.jkubelet.agent.env;
