package io.jkubelet.agent.streaming;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.spdy.DefaultSpdyDataFrame;
import io.netty.handler.codec.spdy.DefaultSpdyRstStreamFrame;
import io.netty.handler.codec.spdy.DefaultSpdySynStreamFrame;
import io.netty.handler.codec.spdy.SpdyDataFrame;
import io.netty.handler.codec.spdy.SpdyFrameCodec;
import io.netty.handler.codec.spdy.SpdyRstStreamFrame;
import io.netty.handler.codec.spdy.SpdyStreamStatus;
import io.netty.handler.codec.spdy.SpdySynReplyFrame;
import io.netty.handler.codec.spdy.SpdyVersion;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A SPDY/3.1 client as client-go's {@code spdystream} behaves, for the tests: it sends the upgrade
 * request, and after the {@code 101} opens streams (odd ids, lower-case headers), sends DATA and
 * FIN, and records what comes back per stream (replies, data, FIN, resets).
 */
final class SpdyTestClient implements AutoCloseable {
  private final EventLoopGroup group = new NioEventLoopGroup(1);
  private final Channel channel;
  final CompletableFuture<HttpResponse> upgrade = new CompletableFuture<>();
  final StringBuilder refusalBody = new StringBuilder();
  final CompletableFuture<Void> closed = new CompletableFuture<>();
  final Set<Integer> replied = ConcurrentHashMap.newKeySet();
  final Set<Integer> finished = ConcurrentHashMap.newKeySet();
  final Set<Integer> reset = ConcurrentHashMap.newKeySet();
  private final Map<Integer, ByteArrayOutputStream> data = new ConcurrentHashMap<>();
  private int nextId = 1;

  SpdyTestClient(int port) throws InterruptedException {
    channel =
        new Bootstrap()
            .group(group)
            .channel(NioSocketChannel.class)
            .handler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ch.pipeline()
                        .addLast("http", new HttpClientCodec())
                        .addLast("h", new Handler());
                  }
                })
            .connect("127.0.0.1", port)
            .sync()
            .channel();
  }

  /** Sends the upgrade request with the protocols and waits for the answer. */
  HttpResponse request(String method, String uri, String... protocols) throws Exception {
    FullHttpRequest req =
        new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.valueOf(method), uri);
    req.headers().set("Host", "localhost").set("Connection", "Upgrade").set("Upgrade", "SPDY/3.1");
    for (String p : protocols) {
      req.headers().add("X-Stream-Protocol-Version", p);
    }
    req.headers().set("Content-Length", 0);
    channel.writeAndFlush(req);
    return upgrade.get(10, TimeUnit.SECONDS);
  }

  /** Opens a stream with the headers (name, value, ...); returns its id. */
  synchronized int open(String... headers) {
    int id = nextId;
    nextId += 2;
    DefaultSpdySynStreamFrame syn = new DefaultSpdySynStreamFrame(id, 0, (byte) 0);
    for (int i = 0; i < headers.length; i += 2) {
      syn.headers().add(headers[i].toLowerCase(), headers[i + 1]);
    }
    channel.writeAndFlush(syn);
    return id;
  }

  void send(int id, String text) {
    channel.writeAndFlush(
        new DefaultSpdyDataFrame(id, Unpooled.copiedBuffer(text, StandardCharsets.UTF_8)));
  }

  void fin(int id) {
    DefaultSpdyDataFrame fin = new DefaultSpdyDataFrame(id);
    fin.setLast(true);
    channel.writeAndFlush(fin);
  }

  void resetStream(int id) {
    channel.writeAndFlush(new DefaultSpdyRstStreamFrame(id, SpdyStreamStatus.CANCEL));
  }

  String data(int id) {
    ByteArrayOutputStream b = data.get(id);
    return b == null ? "" : b.toString(StandardCharsets.UTF_8);
  }

  /** Drops the connection, as a client that goes away. */
  void drop() {
    channel.close().syncUninterruptibly();
  }

  @Override
  public void close() {
    channel.close().syncUninterruptibly();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  private final class Handler extends ChannelInboundHandlerAdapter {
    private HttpResponse head;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      try {
        switch (msg) {
          case HttpResponse r -> {
            head = r;
            if (r.status().code() == 101) {
              ctx.pipeline().addAfter("http", "spdy", new SpdyFrameCodec(SpdyVersion.SPDY_3_1));
              ctx.pipeline().remove("http");
              upgrade.complete(r);
            }
          }
          case HttpContent c -> {
            refusalBody.append(c.content().toString(StandardCharsets.UTF_8));
            if (c instanceof LastHttpContent) {
              upgrade.complete(head);
            }
          }
          case SpdySynReplyFrame reply -> replied.add(reply.streamId());
          case SpdyDataFrame d -> {
            data.computeIfAbsent(d.streamId(), k -> new ByteArrayOutputStream())
                .writeBytes(ByteBufUtil.getBytes(d.content()));
            if (d.isLast()) {
              finished.add(d.streamId());
            }
          }
          case SpdyRstStreamFrame rst -> reset.add(rst.streamId());
          default -> {}
        }
      } finally {
        ReferenceCountUtil.release(msg);
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      closed.complete(null);
      upgrade.completeExceptionally(new IllegalStateException("closed"));
    }
  }
}
