package io.jkubelet.agent.streaming;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;

/**
 * The channel framing of upstream's {@code wsstream}: every WebSocket message carries one channel's
 * bytes, the channel number first. The binary protocols ({@code channel.k8s.io}, {@code
 * v4.channel.k8s.io}) send the number as one byte and the bytes as they are, in binary messages;
 * the base64 ones ({@code base64.channel.k8s.io}, {@code v4.base64.channel.k8s.io}) send it as an
 * ASCII digit and the bytes in standard base64, in text messages. A message's type is not looked at
 * when reading, as upstream does not.
 */
final class WebSocketChannels {
  static final String BINARY = "channel.k8s.io";
  static final String BASE64 = "base64.channel.k8s.io";
  static final String V4_BINARY = "v4." + BINARY;
  static final String V4_BASE64 = "v4." + BASE64;

  /** What exec and attach accept, in the order a client's preference is matched against. */
  static final List<String> REMOTE_COMMAND = List.of(V4_BINARY, V4_BASE64, BINARY, BASE64);

  /** What port-forward accepts. */
  static final List<String> PORT_FORWARD = List.of(V4_BINARY, V4_BASE64);

  /** One received message: the channel and its (decoded) bytes. */
  record Message(int channel, byte[] data) {}

  private WebSocketChannels() {}

  static boolean isBase64(String protocol) {
    return protocol != null && protocol.endsWith(BASE64);
  }

  /** The frame that carries {@code data} on {@code channel}. */
  static WebSocketFrame frame(int channel, byte[] data, boolean base64) {
    return frame(UnpooledByteBufAllocator.DEFAULT, channel, data, 0, data.length, base64);
  }

  /**
   * The frame that carries {@code len} bytes of {@code b} on {@code channel}, in {@code alloc}'s
   * buffer.
   */
  static WebSocketFrame frame(
      ByteBufAllocator alloc, int channel, byte[] b, int off, int len, boolean base64) {
    if (base64) {
      return new TextWebSocketFrame(
          (char) ('0' + channel)
              + Base64.getEncoder().encodeToString(Arrays.copyOfRange(b, off, off + len)));
    }
    ByteBuf buf = alloc.buffer(len + 1);
    buf.writeByte(channel);
    buf.writeBytes(b, off, len);
    return new BinaryWebSocketFrame(buf);
  }

  /**
   * The channel and bytes of a received message, or null for an empty one (which upstream skips). A
   * base64 payload that does not decode throws {@link IllegalArgumentException}.
   */
  static Message read(WebSocketFrame frame, boolean base64) {
    byte[] payload = ByteBufUtil.getBytes(frame.content());
    if (payload.length == 0) {
      return null;
    }
    int channel = payload[0] & 0xff;
    byte[] data = Arrays.copyOfRange(payload, 1, payload.length);
    if (base64) {
      channel -= '0';
      data = Base64.getDecoder().decode(new String(data, StandardCharsets.US_ASCII));
    }
    return new Message(channel, data);
  }
}
