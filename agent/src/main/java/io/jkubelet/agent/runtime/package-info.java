/** The container runtime contract: sandbox, container and image operations, and their records. */
package io.jkubelet.agent.runtime;
