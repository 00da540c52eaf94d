package io.jkubelet.agent.streaming;

import io.netty.channel.Channel;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Port-forward over a WebSocket ({@code v4.channel.k8s.io} or its base64 twin), as upstream's
 * {@code handleWebSocketStreams}: the ports come in the query ({@code ?port=80&port=443} or {@code
 * ?port=80,443}); each port {@code i} has a data channel {@code 2i} (both ways) and an error
 * channel {@code 2i+1}; the first message on each carries the port as two little-endian bytes. Each
 * port gets one connection; the WebSocket closes when all have ended.
 *
 * <p>Thread-safe: frames arrive on the event loop; each forward runs on a virtual thread.
 */
final class WebSocketPortForward extends WebSocketSession {
  private static final Logger log = LoggerFactory.getLogger(WebSocketPortForward.class);

  private final PortForwardTarget target;
  private final List<Integer> ports;
  private final List<InboundBytes> inputs = new ArrayList<>();
  private final AtomicInteger running = new AtomicInteger();

  WebSocketPortForward(
      Channel channel, PortForwardTarget target, List<Integer> ports, String protocol) {
    super(channel, protocol, "port-forward");
    this.target = target;
    this.ports = List.copyOf(ports);
    ReadPauses pauses = new ReadPauses(channel);
    for (int i = 0; i < ports.size(); i++) {
      inputs.add(new InboundBytes(pauses));
    }
  }

  /** Parses {@code port} query values (each may be a comma list), as upstream's NewV4Options. */
  static List<Integer> parsePorts(List<String> values) {
    if (values == null || values.isEmpty()) {
      throw new IllegalArgumentException("query parameter \"port\" is required");
    }
    List<Integer> ports = new ArrayList<>();
    for (String value : values) {
      if (value.isEmpty()) {
        throw new IllegalArgumentException("query parameter \"port\" cannot be empty");
      }
      for (String p : value.split(",")) {
        int port;
        try {
          port = Integer.parseInt(p);
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("unable to parse \"" + value + "\" as a port: " + e);
        }
        if (port < 1 || port > 65535) {
          throw new IllegalArgumentException("port \"" + value + "\" must be > 0");
        }
        ports.add(port);
      }
    }
    return ports;
  }

  /** Announces the ports and starts one forward per port. */
  void start() {
    running.set(ports.size());
    for (int i = 0; i < ports.size(); i++) {
      int index = i;
      Thread.ofVirtual().name("port-forward").start(() -> forward(index));
    }
    if (ports.isEmpty()) {
      close();
    }
  }

  private void forward(int index) {
    int port = ports.get(index);
    FrameOutput data = output(2 * index);
    FrameOutput error = output(2 * index + 1);
    byte[] portBytes = {(byte) port, (byte) (port >> 8)};
    try {
      data.write(portBytes);
      error.write(portBytes);
      target.serve(port, inputs.get(index), data, gone, message -> writeQuietly(error, message));
    } catch (IOException e) {
      log.debug("Streaming: port-forward client went away: {}", e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      inputs.get(index).discard();
      if (running.decrementAndGet() == 0) {
        close();
      }
    }
  }

  private static void writeQuietly(FrameOutput out, byte[] message) {
    try {
      out.write(message);
    } catch (IOException ignored) {
      // the client is gone
    }
  }

  @Override
  void receive(WebSocketChannels.Message m) {
    if (m.channel() % 2 == 0 && m.channel() / 2 < inputs.size()) {
      inputs.get(m.channel() / 2).offer(m.data());
    }
  }

  @Override
  void endInputs() {
    inputs.forEach(InboundBytes::end);
  }
}
