package io.jkubelet.agent.volume;

import java.util.Arrays;

/**
 * One file of a projected volume: its bytes and mode, as upstream's {@code
 * volumeutil.FileProjection}.
 *
 * @param data the content
 * @param mode the permission bits, e.g. {@code 0644}
 */
public record FileProjection(byte[] data, int mode) {
  public FileProjection {
    data = data.clone();
  }

  @Override
  public byte[] data() {
    return data.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FileProjection f && f.mode == mode && Arrays.equals(f.data, data);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(data) + mode;
  }

  @Override
  public String toString() {
    return "FileProjection[" + data.length + " bytes, mode " + Integer.toOctalString(mode) + "]";
  }
}
