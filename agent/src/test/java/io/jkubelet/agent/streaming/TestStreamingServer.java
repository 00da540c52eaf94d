package io.jkubelet.agent.streaming;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.TestPods;
import io.jkubelet.agent.runtime.ContainerConfig;
import io.jkubelet.agent.runtime.Labels;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.SandboxConfig;
import io.jkubelet.agent.runtime.fake.FakeRuntime;
import io.jkubelet.agent.util.FakeClock;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A plain-HTTP Netty server with {@link StreamingRoutes} behind an HTTP codec and an aggregator (as
 * the kubelet server has them), over a {@link FakeRuntime} that runs one pod, {@code default/web}
 * with container {@code app}, for the streaming tests.
 */
final class TestStreamingServer implements AutoCloseable {
  static final String UID = "11111111-2222-3333-4444-555555555555";

  final FakeRuntime runtime = new FakeRuntime(new FakeClock(), "img", "pause");
  final List<Pod> pods = new CopyOnWriteArrayList<>();
  final String sandboxId;
  final String containerId;
  private final EventLoopGroup group = new NioEventLoopGroup(1);
  private final Channel server;

  TestStreamingServer() throws InterruptedException {
    PodRef ref = new PodRef(UID, "web", "default");
    pods.add(TestPods.builder("default", "web", UID).build());
    sandboxId =
        runtime.runPodSandbox(
            SandboxConfig.builder(ref, "pause")
                .attempt(0)
                .hostname("web")
                .hostNetwork(false)
                .ports(List.of())
                .oomScoreAdj(0)
                .labels(Labels.podLabels(ref, Labels.POD_CONTAINER_NAME, Labels.TYPE_SANDBOX))
                .cpuShares(2)
                .build());
    containerId =
        runtime.createContainer(
            sandboxId,
            ContainerConfig.builder(Labels.containerName(ref, "app", 0), "img")
                .entrypoint(null)
                .cmd(null)
                .env(List.of())
                .workingDir("")
                .mounts(List.of())
                .resources(ContainerConfig.Resources.NONE)
                .labels(Labels.podLabels(ref, "app", Labels.TYPE_CONTAINER))
                .stdio(ContainerConfig.Stdio.NONE)
                .build());
    runtime.startContainer(containerId);
    StreamingRoutes routes =
        new StreamingRoutes(
            new StreamingService(
                new StreamTargets(
                    () -> pods, p -> Optional.empty(), uid -> Optional.empty(), runtime)));
    server =
        new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ch.pipeline()
                        .addLast("http", new HttpServerCodec())
                        .addLast("aggregator", new HttpObjectAggregator(65536))
                        .addLast(
                            "router",
                            new SimpleChannelInboundHandler<FullHttpRequest>() {
                              @Override
                              protected void channelRead0(
                                  ChannelHandlerContext ctx, FullHttpRequest req) {
                                if (!routes.handle(ctx, req)) {
                                  Upgrades.refuse(
                                      ctx, Upgrades.text(HttpResponseStatus.NOT_FOUND, "nope"));
                                }
                              }
                            });
                  }
                })
            .bind("127.0.0.1", 0)
            .sync()
            .channel();
  }

  int port() {
    return ((InetSocketAddress) server.localAddress()).getPort();
  }

  @Override
  public void close() {
    server.close().syncUninterruptibly();
    group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
  }
}
