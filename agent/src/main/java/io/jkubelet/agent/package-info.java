/** The jkubelet node agent: wiring of the subsystems into one daemon. */
package io.jkubelet.agent;
