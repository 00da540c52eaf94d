/**
 * Decides and carries out what a pod needs from the runtime: sandbox, init containers, app
 * containers, crash-loop and image-pull backoff, and kills.
 */
package io.jkubelet.agent.kuberuntime;
