package io.jkubelet.agent.kuberuntime;

import io.jkubelet.agent.pod.WaitingReasons;

/**
 * Why a container could not be started in this sync: a waiting reason from {@link WaitingReasons}
 * (e.g. {@code CrashLoopBackOff}), and a message for the status and the log.
 */
public record StartFailure(String reason, String message) {}
