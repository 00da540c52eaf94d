/** The select-style sync loop: one iteration takes one input and dispatches it to the handler. */
package io.jkubelet.agent.loop;
