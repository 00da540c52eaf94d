/** The desired pods of this node, by UID and by full name; mirror pods; the pod phases. */
package io.jkubelet.agent.pod;
