package io.jkubelet.agent.logs;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.jkubelet.agent.runtime.LogRequest;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.server.Responses;
import io.jkubelet.agent.server.Route;
import io.jkubelet.agent.server.auth.Subject;
import io.jkubelet.config.Records;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * {@code GET /containerLogs/{namespace}/{pod}/{container}}: upstream's {@code getContainerLogs}
 * checks and messages, then the container's output as a chunked {@code text/plain} body, read
 * through {@link Runtime#containerLogs} on an executor thread (never the event loop). A client that
 * goes away closes the runtime's stream.
 *
 * @param pods the node's pods (static pods under their own names)
 * @param statuses a pod's status by UID, as jkubelet computed it
 * @param executor where reads are opened (virtual threads)
 */
public record ContainerLogsRoute(
    Supplier<List<Pod>> pods,
    Function<String, Optional<PodStatus>> statuses,
    Runtime runtime,
    Clock clock,
    Executor executor)
    implements Route {
  public ContainerLogsRoute {
    Records.requireNonNull(ContainerLogsRoute.class, pods, statuses, runtime, clock, executor);
  }

  private static final String PREFIX = "/containerLogs/";

  @Override
  public boolean matches(String path) {
    return path.startsWith(PREFIX) || path.equals("/containerLogs");
  }

  @Override
  public void handle(ChannelHandlerContext ctx, FullHttpRequest req, Subject subject) {
    QueryStringDecoder uri = new QueryStringDecoder(req.uri());
    if (!req.method().equals(HttpMethod.GET)) {
      Responses.text(ctx, req, HttpResponseStatus.METHOD_NOT_ALLOWED, "405: Method Not Allowed");
      return;
    }
    String[] parts =
        uri.path().length() <= PREFIX.length()
            ? new String[0]
            : uri.path().substring(PREFIX.length()).split("/", -1);
    String ns = parts.length > 0 ? parts[0] : "";
    String podName = parts.length > 1 ? parts[1] : "";
    String container = parts.length > 2 ? parts[2] : "";
    if (parts.length > 3) {
      Responses.notFound(ctx, req);
      return;
    }
    String missing =
        podName.isEmpty()
            ? "Missing podID."
            : container.isEmpty()
                ? "Missing container name."
                : ns.isEmpty() ? "Missing podNamespace." : null;
    if (missing != null) {
      Responses.text(
          ctx, req, HttpResponseStatus.BAD_REQUEST, "{\"message\": \"" + missing + "\"}");
      return;
    }
    LogOptions options;
    try {
      options = LogOptions.parse(uri.parameters());
    } catch (LogOptions.Invalid e) {
      Responses.text(ctx, req, HttpResponseStatus.valueOf(e.status()), e.getMessage());
      return;
    }
    serve(ctx, req, ns, podName, container, options);
  }

  private void serve(
      ChannelHandlerContext ctx,
      FullHttpRequest req,
      String ns,
      String podName,
      String container,
      LogOptions options) {
    Optional<Pod> pod =
        pods.get().stream()
            .filter(
                p ->
                    ns.equals(p.getMetadata().getNamespace())
                        && podName.equals(p.getMetadata().getName()))
            .findFirst();
    if (pod.isEmpty()) {
      Responses.notFound(ctx, req, "pod \"" + podName + "\" does not exist");
      return;
    }
    if (!hasContainer(pod.get(), container)) {
      Responses.notFound(
          ctx, req, "container \"" + container + "\" not found in pod \"" + podName + "\"");
      return;
    }
    PodStatus status = statuses.apply(pod.get().getMetadata().getUid()).orElse(null);
    switch (ContainerLogStatus.validate(podName, status, container, options.previous())) {
      case ContainerLogStatus.Result.NotAvailable n ->
          Responses.text(ctx, req, HttpResponseStatus.BAD_REQUEST, n.message());
      case ContainerLogStatus.Result.Found f -> {
        LogRequest request = options.request(clock);
        LogStream stream = new LogStream(ctx, req, options.limitBytes());
        executor.execute(
            () -> stream.open(() -> runtime.containerLogs(f.containerId(), request, stream)));
      }
    }
  }

  private static boolean hasContainer(Pod pod, String name) {
    if (pod.getSpec() == null) {
      return false;
    }
    return Stream.concat(
            pod.getSpec().getContainers() == null
                ? Stream.<Container>empty()
                : pod.getSpec().getContainers().stream(),
            pod.getSpec().getInitContainers() == null
                ? Stream.<Container>empty()
                : pod.getSpec().getInitContainers().stream())
        .anyMatch(c -> name.equals(c.getName()));
  }
}
