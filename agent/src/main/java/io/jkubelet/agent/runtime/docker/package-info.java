/**
 * The {@link io.jkubelet.agent.runtime.Runtime} on a Docker Engine, through docker-java: pod
 * sandboxes are pause containers, app containers join their network and IPC namespaces, and names
 * and labels follow dockershim so that an earlier run's containers can be adopted.
 *
 * <p>{@code DockerRuntime} is the public facade; behind it, one package-private part per job:
 *
 * <ul>
 *   <li>{@code DockerClients}: the short- and long-timeout clients of one engine;
 *   <li>{@code PodInspector}: listing and parallel inspects, mapped by {@code InspectMapping} (pure
 *       functions from docker-java objects to runtime records); {@code ContainerList}: the listing
 *       on docker-java's transport, streamed into summaries without binding;
 *   <li>{@code Sandboxes} and {@code Containers}: create, start, stop and remove;
 *   <li>{@code Images}: presence, pull, an image's entrypoint;
 *   <li>{@code ExecSync} (with {@code ExecCallback}): exec with an output cap and a timeout;
 *   <li>{@code EventWatcher}: the container event stream, reconnected with a backoff; {@code
 *       EngineEvents}: that stream read on the watch's own thread from docker-java's transport;
 *   <li>{@code EngineLogs}: log streams from the engine's log API; {@code JsonFileLogs} (with
 *       {@code JsonLogFiles}, {@code JsonLogLine} and {@code LogTime}): a log read from the
 *       json-file itself;
 *   <li>{@code DockerErrors}: every docker-java exception to a {@code RuntimeError} kind.
 * </ul>
 */
package io.jkubelet.agent.runtime.docker;
