package io.jkubelet.agent.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LibCTest {
  @TempDir Path dir;

  @Test
  void aFailureCarriesTheCLibrarysMessageAndErrno() {
    Path missing = dir.resolve("nope");
    assertThatThrownBy(() -> LibC.open(missing.toString(), LibC.O_RDONLY))
        .isInstanceOf(IOException.class)
        .hasMessage("open " + missing + ": No such file or directory")
        .satisfies(e -> assertThat(LibC.errno((IOException) e)).isEqualTo(2));
    assertThat(LibC.errno(new IOException("other"))).isZero();
  }

  @Test
  void readsAFileAndANonBlockingPipeWithNothingWaiting() throws Exception {
    Path f = dir.resolve("f");
    Files.writeString(f, "hello");
    int fd = LibC.open(f.toString(), LibC.O_RDONLY | LibC.O_CLOEXEC);
    try {
      byte[] buf = new byte[16];
      int n = LibC.read(fd, buf);
      assertThat(new String(buf, 0, n, StandardCharsets.UTF_8)).isEqualTo("hello");
      assertThat(LibC.read(fd, buf)).as("the end").isZero();
    } finally {
      LibC.close(fd);
    }
    // A named pipe with a writer that writes nothing: a non-blocking read finds nothing waiting.
    Path fifo = dir.resolve("fifo");
    new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor();
    int reader = LibC.open(fifo.toString(), LibC.O_RDONLY | LibC.O_NONBLOCK);
    try (var writer = Files.newOutputStream(fifo)) {
      assertThatThrownBy(() -> LibC.read(reader, new byte[8]))
          .satisfies(e -> assertThat(LibC.errno((IOException) e)).isEqualTo(LibC.EAGAIN));
      assertThat(LibC.readAvailable(reader, new byte[8])).isZero();
      writer.write("x".getBytes(StandardCharsets.UTF_8));
      writer.flush();
      assertThat(LibC.readAvailable(reader, new byte[8])).isEqualTo(1);
    } finally {
      LibC.close(reader);
    }
  }

  @Test
  void statvfsAndRlimitAndTrim() throws Exception {
    long[] fs = LibC.statvfs(dir.toString());
    assertThat(fs).hasSize(7);
    assertThat(fs[2]).as("f_blocks").isPositive();
    long[] nofile = LibC.getrlimit(7);
    assertThat(nofile[0]).isPositive().isLessThanOrEqualTo(nofile[1]);
    LibC.mallocTrim(); // either answer is fine; it must be callable
    assertThatThrownBy(() -> LibC.statvfs(dir.resolve("nope").toString()))
        .hasMessageEndingWith("No such file or directory");
  }
}
