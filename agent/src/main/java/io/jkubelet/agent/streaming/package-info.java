/**
 * The kubelet's streaming endpoints ({@code /exec}, {@code /attach}, {@code /portForward}, {@code
 * /run}): the client-go remote-command and port-forward protocols over SPDY/3.1 and WebSockets on
 * Netty, joined to the runtime's interactive streams ({@code Runtime.execStream}, {@code attach},
 * {@code portForward}) through one protocol-independent session ({@link
 * io.jkubelet.agent.streaming.RemoteCommandStreams}).
 */
package io.jkubelet.agent.streaming;
