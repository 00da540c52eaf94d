/** The desired pods of this node, by UID and by full name. */
package io.jkubelet.agent.pod;
