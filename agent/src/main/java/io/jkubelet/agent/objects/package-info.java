/**
 * The API objects a node reads for its pods, as upstream's secret and configmap managers and its
 * service lister: {@link io.jkubelet.agent.objects.PodObjects} at the edge, an API-backed
 * implementation in cluster mode and {@link io.jkubelet.agent.objects.PodObjects#NONE} standalone.
 */
package io.jkubelet.agent.objects;
