/**
 * The API objects a node reads for its pods, as upstream's secret and configmap managers and its
 * service lister: {@link io.jkubelet.agent.objects.PodObjects} at the edge; in cluster mode {@link
 * io.jkubelet.agent.objects.WatchPodObjects}, upstream's Watch strategy (one name-selected watch
 * per referenced object, shared by its pods), falling back to {@link
 * io.jkubelet.agent.objects.ApiPodObjects}' GETs until a watch has synced; {@link
 * io.jkubelet.agent.objects.PodObjects#NONE} standalone.
 */
package io.jkubelet.agent.objects;
