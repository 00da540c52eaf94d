/**
 * Pod admission: whether the node allows a pod's sysctls and has room for it ({@code maxPods}, cpu
 * and memory requests against allocatable). {@link io.jkubelet.agent.admission.PodAdmitter} is the
 * edge: it admits or rejects a pod, and remembers the rejected ones.
 */
package io.jkubelet.agent.admission;
