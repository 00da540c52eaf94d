/** The event recorder: what happened to a pod or the node, with upstream reasons and messages. */
package io.jkubelet.agent.events;
