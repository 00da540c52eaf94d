/**
 * Runs the postStart and preStop lifecycle hooks of containers: exec, httpGet and sleep, with
 * failure messages in upstream's words (durations as Go prints them).
 */
package io.jkubelet.agent.lifecycle;
