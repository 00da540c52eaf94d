/** The command line: {@code jkubelet run}, {@code jkubelet version}, flags and exit codes. */
package io.jkubelet.agent.cli;
