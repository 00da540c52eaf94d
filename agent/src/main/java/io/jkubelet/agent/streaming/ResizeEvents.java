package io.jkubelet.agent.streaming;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jkubelet.agent.runtime.TerminalSize;
import java.io.IOException;
import java.io.InputStream;
import java.util.Iterator;
import java.util.Map;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the resize stream (SPDY's {@code resize} stream, WebSocket channel 4): a sequence of JSON
 * objects {@code {"Width":80,"Height":24}}, as client-go's {@code TerminalSize} encodes them (keys
 * matched without regard to case, as Go's decoder does). Stops at the end of the stream or at the
 * first malformed value, as upstream's {@code handleResizeEvents} does.
 */
final class ResizeEvents {
  private static final Logger log = LoggerFactory.getLogger(ResizeEvents.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private ResizeEvents() {}

  /** Reads sizes on a virtual thread and hands each to {@code listener}. */
  static void follow(InputStream in, Consumer<TerminalSize> listener) {
    Thread.ofVirtual().name("resize-events").start(() -> read(in, listener));
  }

  /** Reads sizes until the end of {@code in}; see the class comment. */
  static void read(InputStream in, Consumer<TerminalSize> listener) {
    try (MappingIterator<JsonNode> values = JSON.readerFor(JsonNode.class).readValues(in)) {
      while (values.hasNextValue()) {
        TerminalSize size = size(values.nextValue());
        if (size == null) {
          return;
        }
        listener.accept(size);
      }
    } catch (IOException | RuntimeException e) {
      log.debug("Streaming: resize stream ended: {}", e.toString());
    }
  }

  /** The size in one JSON value, or null if it is not one. */
  static TerminalSize size(JsonNode node) {
    if (node == null || !node.isObject()) {
      return null;
    }
    int width = 0;
    int height = 0;
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      if (field.getKey().equalsIgnoreCase("width")) {
        width = field.getValue().asInt();
      } else if (field.getKey().equalsIgnoreCase("height")) {
        height = field.getValue().asInt();
      }
    }
    try {
      return new TerminalSize(width, height);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
