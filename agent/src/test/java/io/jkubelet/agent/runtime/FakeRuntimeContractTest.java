package io.jkubelet.agent.runtime;

import io.jkubelet.agent.runtime.fake.FakeRuntime;
import io.jkubelet.agent.util.FakeClock;
import java.time.Duration;
import java.util.List;

/**
 * {@link RuntimeContract} on {@link FakeRuntime}: the fake that the kubelet's unit tests use must
 * answer as Docker does. Its exec runs {@link RuntimeContract.Program}s: a program's run steps the
 * fake clock, so a long one times out.
 */
class FakeRuntimeContractTest extends RuntimeContract {
  private static final String PROGRAM = "fake-program";

  private final FakeClock clock = new FakeClock();
  private final FakeRuntime fake = new FakeRuntime(clock, IMAGE, SANDBOX_IMAGE);

  FakeRuntimeContractTest() {
    fake.onExec(
        (c, cmd) -> {
          if (!cmd.get(0).equals(PROGRAM)) {
            return new ExecResult(0, "", false);
          }
          clock.step(Duration.parse(cmd.get(2)));
          return new ExecResult(Integer.parseInt(cmd.get(3)), cmd.get(1), false);
        });
    fake.onExecStream(
        (c, cmd, io) -> {
          if (!cmd.get(0).equals(PROGRAM)) {
            return FakeRuntime.cat(c, cmd, io);
          }
          io.stdout().write(cmd.get(1).getBytes(java.nio.charset.StandardCharsets.UTF_8));
          Thread.sleep(Duration.parse(cmd.get(2)).toMillis()); // a real wait: close interrupts it
          return Integer.parseInt(cmd.get(3));
        });
  }

  @Override
  protected void serveHttp(String containerId, int port, String body) {
    fake.listen(
        port,
        (in, out) -> {
          in.transferTo(java.io.OutputStream.nullOutputStream());
          out.write(
              ("HTTP/1.0 200 OK\r\n\r\n" + body).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        });
  }

  @Override
  protected int execsRunning(String containerId) {
    return fake.openStreams();
  }

  @Override
  protected Runtime runtime() {
    return fake;
  }

  @Override
  protected List<String> mainProcess() {
    return List.of("sleep", "3600");
  }

  @Override
  protected void exit(String containerId, int exitCode) {
    clock.step(Duration.ofSeconds(1));
    fake.exit(containerId, exitCode, "");
  }

  @Override
  protected void exceedMemory(String containerId) {
    clock.step(Duration.ofSeconds(1));
    fake.exit(containerId, 137, "OOMKilled");
  }

  @Override
  protected List<String> command(Program program) {
    return List.of(
        PROGRAM, program.output(), program.runs().toString(), String.valueOf(program.exitCode()));
  }
}
