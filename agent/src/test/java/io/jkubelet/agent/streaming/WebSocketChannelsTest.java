package io.jkubelet.agent.streaming;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import org.junit.jupiter.api.Test;

class WebSocketChannelsTest {

  @Test
  void binaryProtocolsPutTheChannelNumberAsTheFirstByte() {
    WebSocketFrame frame = WebSocketChannels.frame(1, "hello".getBytes(UTF_8), false);

    assertThat(frame).isInstanceOf(BinaryWebSocketFrame.class);
    assertThat(ByteBufUtil.getBytes(frame.content())).containsExactly(1, 'h', 'e', 'l', 'l', 'o');
    frame.release();
  }

  @Test
  void base64ProtocolsSendTheChannelAsADigitAndTheBytesInBase64InTextMessages() {
    WebSocketFrame frame = WebSocketChannels.frame(2, "hello".getBytes(UTF_8), true);

    assertThat(frame).isInstanceOf(TextWebSocketFrame.class);
    assertThat(((TextWebSocketFrame) frame).text()).isEqualTo("2aGVsbG8=");
    frame.release();
  }

  @Test
  void anEmptyAnnouncementIsTheChannelAlone() {
    assertThat(ByteBufUtil.getBytes(WebSocketChannels.frame(1, new byte[0], false).content()))
        .containsExactly(1);
    assertThat(((TextWebSocketFrame) WebSocketChannels.frame(3, new byte[0], true)).text())
        .isEqualTo("3");
  }

  @Test
  void readingSplitsTheChannelFromTheBytesWhateverTheMessageType() {
    WebSocketChannels.Message binary =
        WebSocketChannels.read(
            new BinaryWebSocketFrame(Unpooled.wrappedBuffer(new byte[] {0, 'l', 's'})), false);
    assertThat(binary.channel()).isZero();
    assertThat(new String(binary.data(), UTF_8)).isEqualTo("ls");

    WebSocketChannels.Message text = WebSocketChannels.read(new TextWebSocketFrame("0bHM="), true);
    assertThat(text.channel()).isZero();
    assertThat(new String(text.data(), UTF_8)).isEqualTo("ls");

    WebSocketChannels.Message resize =
        WebSocketChannels.read(
            new TextWebSocketFrame(
                "4"
                    + java.util.Base64.getEncoder()
                        .encodeToString("{\"Width\":80,\"Height\":24}".getBytes(UTF_8))),
            true);
    assertThat(resize.channel()).isEqualTo(4);
  }

  @Test
  void anEmptyMessageIsSkippedAndBadBase64IsAnError() {
    assertThat(WebSocketChannels.read(new BinaryWebSocketFrame(Unpooled.EMPTY_BUFFER), false))
        .isNull();
    assertThatThrownBy(() -> WebSocketChannels.read(new TextWebSocketFrame("0!!!"), true))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
