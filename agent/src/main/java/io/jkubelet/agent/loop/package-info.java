/**
 * The select-style sync loop: one iteration takes one input and dispatches it to the handler. Its
 * sync and housekeeping tickers run on a scheduler from the injected {@link
 * io.jkubelet.agent.util.Schedulers}.
 */
package io.jkubelet.agent.loop;
