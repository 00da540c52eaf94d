/** Runs the postStart and preStop lifecycle hooks of containers: exec, httpGet and sleep. */
package io.jkubelet.agent.lifecycle;
