package io.jkubelet.agent.network;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pods' network attachments on disk, in libcni's result cache ({@code
 * <cni-cache-dir>/results/<network>-<sandbox id>-<ifname>}, {@code kind: cniCacheV1}): what DEL
 * needs, the network's configuration, CNI arguments and capability arguments, and, once ADD
 * answered, its result. Unlike libcni, an attachment is written (and forced to disk)
 * <em>before</em> its ADD runs, so that no address a plugin hands out is ever forgotten, whatever
 * stops jkubelet; it is removed only once DEL succeeded. An upstream kubelet's cache is read the
 * same way.
 *
 * <p>Thread-safe: the index is a concurrent map, and each sandbox's file is written only by the one
 * thread that sets up or tears down that sandbox.
 */
final class Attachments {
  private static final Logger log = LoggerFactory.getLogger(Attachments.class);

  /** One attachment: which network a sandbox joined, how, and what ADD answered (null before). */
  record Attachment(
      String sandboxId,
      String ifName,
      NetworkList network,
      List<List<String>> cniArgs,
      JsonNode capabilityArgs,
      JsonNode result) {

    Attachment withResult(JsonNode r) {
      return new Attachment(sandboxId, ifName, network, cniArgs, capabilityArgs, r);
    }

    /** The CNI_ARGS value: {@code K=V;K=V}. */
    String args() {
      return String.join(";", cniArgs.stream().map(kv -> kv.get(0) + "=" + kv.get(1)).toList());
    }

    /** A CNI argument's value, or "". */
    String arg(String key) {
      return cniArgs.stream()
          .filter(kv -> kv.get(0).equals(key))
          .map(kv -> kv.get(1))
          .findFirst()
          .orElse("");
    }

    /** The pod's IPs from the ADD result, one per family, IPv4 first; empty before the result. */
    List<String> ips() {
      return Results.ips(result);
    }
  }

  private final Path dir;
  private final Map<String, Attachment> bySandbox = new ConcurrentHashMap<>();

  Attachments(Path cacheDir) {
    this.dir = cacheDir.resolve("results");
  }

  /** Reads every attachment on disk into the index; a file that cannot be read is logged. */
  void load() {
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.toList()) {
        if (f.getFileName().toString().startsWith("cni-loopback-")
            || f.getFileName().toString().startsWith(".")) {
          continue;
        }
        try {
          Attachment a = read(f);
          if (a != null) {
            bySandbox.put(a.sandboxId(), a);
          }
        } catch (IOException | RuntimeException e) {
          log.warn("Network: cannot read the cached attachment {}: {}", f, e.getMessage());
        }
      }
    } catch (NoSuchFileException e) {
      // Nothing attached yet.
    } catch (IOException e) {
      log.warn("Network: cannot list {}: {}", dir, e.getMessage());
    }
  }

  Optional<Attachment> get(String sandboxId) {
    return Optional.ofNullable(bySandbox.get(sandboxId));
  }

  List<Attachment> all() {
    return new ArrayList<>(bySandbox.values());
  }

  int size() {
    return bySandbox.size();
  }

  /** Writes the attachment and forces it to disk, then indexes it. */
  void put(Attachment a) throws IOException {
    Files.createDirectories(dir);
    Path target = file(a);
    Path tmp = dir.resolve("." + target.getFileName() + ".tmp");
    byte[] bytes = CniExec.JSON.writeValueAsBytes(toJson(a));
    try (FileChannel ch =
        FileChannel.open(
            tmp,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
      ch.write(java.nio.ByteBuffer.wrap(bytes));
      ch.force(true);
    }
    try {
      Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
    }
    bySandbox.put(a.sandboxId(), a);
  }

  /** Forgets the attachment, on disk first. */
  void remove(Attachment a) throws IOException {
    Files.deleteIfExists(file(a));
    bySandbox.remove(a.sandboxId());
  }

  private Path file(Attachment a) {
    return dir.resolve(a.network().name() + "-" + a.sandboxId() + "-" + a.ifName());
  }

  private static ObjectNode toJson(Attachment a) {
    ObjectNode o = CniExec.JSON.createObjectNode();
    o.put("kind", "cniCacheV1");
    o.put("containerId", a.sandboxId());
    o.put("config", Base64.getEncoder().encodeToString(a.network().bytes()));
    o.put("ifName", a.ifName());
    o.put("networkName", a.network().name());
    ArrayNode args = o.putArray("cniArgs");
    a.cniArgs().forEach(kv -> args.addArray().add(kv.get(0)).add(kv.get(1)));
    o.set("capabilityArgs", a.capabilityArgs());
    if (a.result() != null) {
      o.set("result", a.result());
    }
    return o;
  }

  private static Attachment read(Path f) throws IOException {
    JsonNode o = CniExec.JSON.readTree(f.toFile());
    if (o == null || !"cniCacheV1".equals(o.path("kind").asText())) {
      return null;
    }
    byte[] config = Base64.getDecoder().decode(o.path("config").asText(""));
    NetworkList network;
    try {
      network = NetworkList.parseList(f.toString(), config);
    } catch (IllegalArgumentException e) {
      network = NetworkList.parseSingle(f.toString(), config); // libcni's AddNetwork caches a .conf
    }
    List<List<String>> args = new ArrayList<>();
    o.path("cniArgs").forEach(kv -> args.add(List.of(kv.path(0).asText(), kv.path(1).asText())));
    JsonNode result = o.get("result");
    return new Attachment(
        o.path("containerId").asText(),
        o.path("ifName").asText("eth0"),
        network,
        args,
        o.path("capabilityArgs").isObject()
            ? o.get("capabilityArgs")
            : CniExec.JSON.createObjectNode(),
        result == null || result.isNull() ? null : result);
  }
}
