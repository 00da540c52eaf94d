package io.jkubelet.agent.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.LifecycleHandler;
import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.TestPods;
import io.jkubelet.agent.prober.ExecRunner;
import io.jkubelet.agent.prober.ProbeHttp;
import io.jkubelet.agent.prober.Prober;
import io.jkubelet.agent.runtime.ExecResult;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.util.ApiSerialization;
import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.agent.util.RecordingSleeper;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class HookRunnerTest {
  private static final Pod POD =
      TestPods.parse(
          """
          apiVersion: v1
          kind: Pod
          metadata: {name: p, namespace: default, uid: u1}
          spec:
            containers:
            - {name: c, image: 'jkubelet/busybox:1.35', ports: [{name: hooks, containerPort: 1}]}
          """);

  private final FakeClock clock = new FakeClock();
  private final RecordingSleeper sleeper = new RecordingSleeper(clock);
  private final List<String> execs = new CopyOnWriteArrayList<>();
  private ExecResult execResult = new ExecResult(0, "", false);
  private RuntimeException execError;
  private final ExecRunner exec =
      (id, cmd, timeout) -> {
        execs.add(id + " " + String.join(" ", cmd) + " within " + timeout.toSeconds() + "s");
        if (execError != null) {
          throw execError;
        }
        return execResult;
      };
  private final ProbeHttp http = new ProbeHttp(Prober.MAX_BODY_BYTES);
  private final HookRunner runner = new HookRunner(exec, () -> http, sleeper);
  private final List<String> requests = new CopyOnWriteArrayList<>();
  private HttpServer server;

  @BeforeEach
  void serve() throws Exception {
    http.start();
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        ex -> {
          requests.add(
              ex.getRequestURI().getPath() + " " + ex.getRequestHeaders().getFirst("X-Hook"));
          int status = ex.getRequestURI().getPath().equals("/fail") ? 500 : 200;
          ex.sendResponseHeaders(status, -1);
          ex.close();
        });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
    http.stop();
  }

  private Container container() {
    Container c = POD.getSpec().getContainers().get(0);
    c.getPorts().get(0).setContainerPort(server.getAddress().getPort());
    return c;
  }

  private Optional<String> run(String hookYaml, Duration timeout) {
    LifecycleHandler hook = ApiSerialization.SHARED.unmarshal(hookYaml, LifecycleHandler.class);
    return runner.run(POD, container(), "cid", "127.0.0.1", hook, timeout);
  }

  @Test
  void anExecHookRunsInTheContainerWithinTheTimeout() {
    assertThat(run("exec: {command: [touch, /ready]}", Duration.ofSeconds(30))).isEmpty();
    assertThat(execs).containsExactly("cid touch /ready within 30s");
  }

  @Test
  void aFailedExecHookSaysWhatUpstreamSays() {
    execResult = new ExecResult(3, "no config here\n", false);
    assertThat(run("exec: {command: [sh, -c, 'exit 3']}", Duration.ofSeconds(30)))
        .contains(
            "Exec lifecycle hook ([sh -c exit 3]) for Container \"c\" in Pod \"p_default(u1)\""
                + " failed - error: command 'sh -c exit 3' exited with 3, message: \"no config"
                + " here\\n\"");
  }

  @Test
  void anExecHookThatTimesOutOrCannotRunFails() {
    execResult = ExecResult.timeout("half");
    assertThat(run("exec: {command: [sleep, '60']}", Duration.ofSeconds(2)))
        .hasValueSatisfying(
            m ->
                assertThat(m)
                    .contains("error: command 'sleep 60' did not complete within 2s")
                    .endsWith("message: \"half\""));
    execError = new RuntimeError(RuntimeError.Kind.OTHER, "container cid is not running");
    assertThat(run("exec: {command: [true]}", Duration.ofSeconds(2)))
        .hasValueSatisfying(m -> assertThat(m).contains("error: container cid is not running"));
    assertThat(run("exec: {command: []}", Duration.ofSeconds(2)))
        .hasValueSatisfying(m -> assertThat(m).contains("exec.command must not be empty"));
  }

  @Test
  void aTimeoutIsSpelledAsGoPrintsADuration() {
    execResult = ExecResult.timeout("");
    assertThat(run("exec: {command: [sleep, '60']}", Duration.ofMillis(1500)))
        .hasValueSatisfying(m -> assertThat(m).contains("did not complete within 1.5s"));
    assertThat(run("exec: {command: [sleep, '60']}", Duration.ofMillis(500)))
        .hasValueSatisfying(m -> assertThat(m).contains("did not complete within 500ms"));
    assertThat(run("exec: {command: [sleep, '60']}", Duration.ofSeconds(90)))
        .hasValueSatisfying(m -> assertThat(m).contains("did not complete within 1m30s"));
  }

  @Test
  void anHttpHookGetsThePodIpOnANamedPortAndFailsOnAnErrorStatus() {
    assertThat(
            run(
                "httpGet: {path: /stop, port: hooks, httpHeaders: [{name: X-Hook, value: pre}]}",
                Duration.ofSeconds(5)))
        .isEmpty();
    assertThat(requests).containsExactly("/stop pre");

    assertThat(run("httpGet: {path: /fail, port: hooks}", Duration.ofSeconds(5)))
        .contains(
            "Http lifecycle hook (/fail) for Container \"c\" in Pod \"p_default(u1)\" failed -"
                + " error: HTTP probe failed with statuscode: 500, message: \"\"");
    assertThat(run("httpGet: {path: /x, port: nosuch}", Duration.ofSeconds(5)))
        .hasValueSatisfying(m -> assertThat(m).contains("named port \"nosuch\" not found"));
  }

  @Test
  void aSleepHookSleepsButNeverBeyondTheTimeout() {
    assertThat(run("sleep: {seconds: 5}", Duration.ofSeconds(30))).isEmpty();
    assertThat(run("sleep: {seconds: 500}", Duration.ofSeconds(30))).isEmpty();
    assertThat(sleeper.sleeps()).containsExactly(Duration.ofSeconds(5), Duration.ofSeconds(30));
  }

  @Test
  void aTcpSocketHookIsRefusedClearly() {
    assertThat(run("tcpSocket: {port: 80}", Duration.ofSeconds(30)))
        .contains(
            "Lifecycle hook for Container \"c\" in Pod \"p_default(u1)\" failed - error:"
                + " tcpSocket is not supported as a lifecycle hook");
  }
}
