package io.jkubelet.agent.network;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jkubelet.agent.util.Errors;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Runs CNI plugin binaries as the CNI spec's "plugin execution" describes, as libcni's {@code
 * invoke} package: the command and its arguments in {@code CNI_*} variables, the configuration on
 * stdin, the result or the error as JSON on stdout.
 *
 * <p>Every call is bounded by the timeout: a plugin that hangs is killed, and only the caller (one
 * pod's worker) waited for it. Thread-safe; the answers to {@code VERSION} are kept per binary and
 * its modification time.
 */
final class CniExec {
  static final ObjectMapper JSON = new ObjectMapper();

  /** The {@code cniVersion} sent with {@code VERSION}: the newest this runtime reads. */
  static final String NEWEST_SPEC = "1.0.0";

  private final List<Path> binDirs;
  private final Duration timeout;
  private final Map<Path, Versions> versions = new ConcurrentHashMap<>();

  private record Versions(long modified, List<String> supported) {}

  /** The variables of one call: command, container, namespace, interface and arguments. */
  record Call(String command, String containerId, String netns, String ifName, String args) {}

  CniExec(List<Path> binDirs, Duration timeout) {
    this.binDirs = List.copyOf(binDirs);
    this.timeout = timeout;
  }

  List<Path> binDirs() {
    return binDirs;
  }

  /** The plugin's binary, from the first directory of the path that has it. */
  Path find(String type) throws CniException {
    if (type == null || type.isEmpty() || type.contains("/")) {
      throw new CniException("invalid plugin type \"" + type + "\"");
    }
    for (Path dir : binDirs) {
      Path p = dir.resolve(type);
      if (Files.isRegularFile(p) && Files.isExecutable(p)) {
        return p;
      }
    }
    throw new CniException(
        "failed to find plugin \""
            + type
            + "\" in path ["
            + binDirs.stream().map(Path::toString).collect(Collectors.joining(" "))
            + "]");
  }

  /** The spec versions the plugin supports, from its answer to {@code VERSION}. */
  List<String> supportedVersions(String type) throws CniException {
    Path bin = find(type);
    long modified;
    try {
      modified = Files.getLastModifiedTime(bin).toMillis();
    } catch (IOException e) {
      throw Errors.withCause(
          new CniException("cannot read plugin " + bin + ": " + e.getMessage()), e);
    }
    Versions known = versions.get(bin);
    if (known != null && known.modified == modified) {
      return known.supported;
    }
    byte[] in = ("{\"cniVersion\":\"" + NEWEST_SPEC + "\"}").getBytes(StandardCharsets.UTF_8);
    JsonNode answer = run(bin, new Call("VERSION", "", "", "", ""), in);
    List<String> supported = new ArrayList<>();
    JsonNode list = answer.path("supportedVersions");
    if (list.isArray()) {
      list.forEach(v -> supported.add(v.asText()));
    } else if (answer.hasNonNull("cniVersion")) {
      // A plugin of spec 0.1.0 answers with its one version only.
      supported.add(answer.get("cniVersion").asText());
    }
    versions.put(bin, new Versions(modified, List.copyOf(supported)));
    return List.copyOf(supported);
  }

  /** Runs the plugin of {@code type} with {@code conf} on stdin; returns its stdout as JSON. */
  JsonNode exec(String type, Call call, JsonNode conf) throws CniException {
    byte[] in;
    try {
      in = JSON.writeValueAsBytes(conf);
    } catch (IOException e) {
      throw Errors.withCause(
          new CniException("cannot write the configuration of " + type + ": " + e), e);
    }
    return run(find(type), call, in);
  }

  private JsonNode run(Path bin, Call call, byte[] stdin) throws CniException {
    ProcessBuilder pb = new ProcessBuilder(bin.toString());
    Map<String, String> env = pb.environment();
    env.putAll(variables(call));
    Process p;
    try {
      p = pb.start();
    } catch (IOException e) {
      throw Errors.withCause(
          new CniException("cannot run plugin " + bin + ": " + e.getMessage()), e);
    }
    Reader out = Reader.of(p.getInputStream(), "cni-stdout");
    Reader err = Reader.of(p.getErrorStream(), "cni-stderr");
    try {
      try (var stdinStream = p.getOutputStream()) {
        stdinStream.write(stdin);
      } catch (IOException e) {
        // A plugin that exits before reading its input: its exit code and output say why.
      }
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        throw new CniException(
            "plugin "
                + bin.getFileName()
                + " timed out after "
                + timeout.toSeconds()
                + "s on "
                + call.command());
      }
      String stdout = out.text();
      if (p.exitValue() != 0) {
        throw new CniException(errorOf(bin, p.exitValue(), stdout, err.text()));
      }
      if (stdout.isBlank()) {
        return JSON.createObjectNode();
      }
      try {
        return JSON.readTree(stdout);
      } catch (IOException e) {
        throw new CniException(
            "plugin " + bin.getFileName() + " answered with malformed JSON: " + abbreviate(stdout));
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw Errors.withCause(
          new CniException("interrupted while running plugin " + bin.getFileName()), e);
    }
  }

  private Map<String, String> variables(Call call) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("CNI_COMMAND", call.command());
    env.put("CNI_CONTAINERID", call.containerId());
    env.put("CNI_NETNS", call.netns());
    env.put("CNI_IFNAME", call.ifName());
    env.put("CNI_ARGS", call.args());
    env.put("CNI_PATH", binDirs.stream().map(Path::toString).collect(Collectors.joining(":")));
    return env;
  }

  /** The plugin's error as libcni prints it ({@code msg; details}), or its raw output. */
  static String errorOf(Path bin, int exit, String stdout, String stderr) {
    try {
      JsonNode e = JSON.readTree(stdout);
      if (e != null && e.hasNonNull("msg")) {
        String details = e.path("details").asText("");
        return e.get("msg").asText() + (details.isEmpty() ? "" : "; " + details);
      }
    } catch (IOException ignored) {
      // Not a CNI error object: the raw output below.
    }
    String text = (stdout + " " + stderr).strip();
    return "plugin "
        + bin.getFileName()
        + " failed with exit code "
        + exit
        + (text.isEmpty() ? "" : ": " + abbreviate(text));
  }

  private static String abbreviate(String s) {
    return s.length() <= 500 ? s : s.substring(0, 500) + "...";
  }

  /** Drains a stream on a virtual thread, so that a chatty plugin never blocks on a full pipe. */
  private static final class Reader {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final Thread thread;

    private Reader(InputStream in, String name) {
      thread =
          Thread.ofVirtual()
              .name(name)
              .start(
                  () -> {
                    try (in) {
                      in.transferTo(bytes);
                    } catch (IOException ignored) {
                      // The process was killed: what was read is kept.
                    }
                  });
    }

    static Reader of(InputStream in, String name) {
      return new Reader(in, name);
    }

    String text() throws InterruptedException {
      thread.join(Duration.ofSeconds(5));
      synchronized (bytes) {
        return bytes.toString(StandardCharsets.UTF_8);
      }
    }
  }
}
