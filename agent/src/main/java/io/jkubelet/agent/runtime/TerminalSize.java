package io.jkubelet.agent.runtime;

/**
 * A terminal's size in character cells, as client-go's {@code remotecommand.TerminalSize} sends it
 * on the resize stream ({@code {"Width":80,"Height":24}}).
 */
public record TerminalSize(int width, int height) {
  public TerminalSize {
    if (width < 0 || height < 0 || width > 0xffff || height > 0xffff) {
      throw new IllegalArgumentException("terminal size out of range: " + width + "x" + height);
    }
  }
}
