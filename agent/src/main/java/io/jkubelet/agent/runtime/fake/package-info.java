/**
 * The in-memory container runtime and image service that the unit tests and hollow nodes run pods
 * on, held to Docker's behaviour by the runtime and image service contract tests.
 */
package io.jkubelet.agent.runtime.fake;
