/**
 * One pod's sync, as upstream's {@code Kubelet.syncPod}: the pod worker's {@link
 * io.jkubelet.agent.workers.PodSyncFn}. It reads the runtime status, writes the API status and lets
 * the runtime manager act. It sits above {@code kuberuntime} and {@code status}, which it joins.
 */
package io.jkubelet.agent.sync;
