/**
 * The pod lifecycle event generator: relists the runtime, turns differences into events, and keeps
 * the pod cache that workers wait on.
 */
package io.jkubelet.agent.pleg;
