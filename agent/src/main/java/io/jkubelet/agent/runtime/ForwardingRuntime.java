package io.jkubelet.agent.runtime;

import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A {@link Runtime} that hands every call to another, for decorators that change a few calls
 * (Guava's {@code ForwardingObject} idea): a subclass overrides only what it adds to. Thread-safe
 * as the delegate.
 */
public abstract class ForwardingRuntime implements Runtime {
  protected final Runtime delegate;

  protected ForwardingRuntime(Runtime delegate) {
    this.delegate = delegate;
  }

  @Override
  public PodStatus podStatus(PodRef pod) {
    return delegate.podStatus(pod);
  }

  @Override
  public PodStatus podStatus(PodRef pod, List<String> containerIds) {
    return delegate.podStatus(pod, containerIds);
  }

  @Override
  public List<ContainerSummary> listContainers(PodRef pod) {
    return delegate.listContainers(pod);
  }

  @Override
  public String runPodSandbox(SandboxConfig config) {
    return delegate.runPodSandbox(config);
  }

  @Override
  public void stopPodSandbox(String sandboxId, Duration grace) {
    delegate.stopPodSandbox(sandboxId, grace);
  }

  @Override
  public void removePodSandbox(String sandboxId) {
    delegate.removePodSandbox(sandboxId);
  }

  @Override
  public String type() {
    return delegate.type();
  }

  @Override
  public String version() {
    return delegate.version();
  }

  @Override
  public List<ContainerSummary> listContainers() {
    return delegate.listContainers();
  }

  @Override
  public String sandboxNetNs(String sandboxId) {
    return delegate.sandboxNetNs(sandboxId);
  }

  @Override
  public String createContainer(String sandboxId, ContainerConfig config) {
    return delegate.createContainer(sandboxId, config);
  }

  @Override
  public void startContainer(String containerId) {
    delegate.startContainer(containerId);
  }

  @Override
  public void stopContainer(String containerId, Duration grace) {
    delegate.stopContainer(containerId, grace);
  }

  @Override
  public void removeContainer(String containerId) {
    delegate.removeContainer(containerId);
  }

  @Override
  public ExecResult exec(String containerId, List<String> command, Duration timeout) {
    return delegate.exec(containerId, command, timeout);
  }

  @Override
  public StreamHandle execStream(String containerId, List<String> command, StreamIo io) {
    return delegate.execStream(containerId, command, io);
  }

  @Override
  public StreamHandle attach(String containerId, StreamIo io) {
    return delegate.attach(containerId, io);
  }

  @Override
  public StreamHandle portForward(String sandboxId, int port, InputStream in, OutputStream out) {
    return delegate.portForward(sandboxId, port, in, out);
  }

  @Override
  public boolean imagePresent(String image) {
    return delegate.imagePresent(image);
  }

  @Override
  public String imageUser(String image) {
    return delegate.imageUser(image);
  }

  @Override
  public List<ImageSummary> listImages() {
    return delegate.listImages();
  }

  @Override
  public void pullImage(String image, RegistryAuth auth, Duration timeout, PullObserver observer) {
    delegate.pullImage(image, auth, timeout, observer);
  }

  @Override
  public AutoCloseable watchContainerEvents(Runnable onChange) {
    return delegate.watchContainerEvents(onChange);
  }

  @Override
  public AutoCloseable containerLogs(String containerId, LogRequest request, LogSink sink) {
    return delegate.containerLogs(containerId, request, sink);
  }

  @Override
  public AutoCloseable followLogEntries(
      String containerId, Optional<Instant> since, LogEntrySink sink) {
    return delegate.followLogEntries(containerId, since, sink);
  }
}
