package io.jkubelet.agent.certificates;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import io.fabric8.kubernetes.api.model.AuthInfo;
import io.fabric8.kubernetes.api.model.Cluster;
import io.fabric8.kubernetes.api.model.Config;
import io.fabric8.kubernetes.api.model.Context;
import io.fabric8.kubernetes.api.model.NamedAuthInfo;
import io.fabric8.kubernetes.api.model.NamedCluster;
import io.fabric8.kubernetes.api.model.NamedContext;
import io.jkubelet.agent.util.ApiSerialization;
import io.jkubelet.agent.util.Errors;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What bootstrap reads from a kubeconfig (its current context's cluster and client certificate) and
 * the kubeconfig it writes, as upstream's {@code writeKubeconfigFromBootstrapping}. Parsed with
 * {@link ApiSerialization}, as {@code cli.Kubeconfig} parses {@code --kubeconfig} for the clients;
 * files named in it are relative to its directory.
 */
final class KubeconfigFile {
  private static final ObjectMapper YAML =
      new ObjectMapper(
          new YAMLFactory()
              .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
              .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES));

  private KubeconfigFile() {}

  /** The file cannot be read or does not say what is needed; the message names the file. */
  static final class KubeconfigException extends Exception {
    KubeconfigException(String message) {
      super(message);
    }
  }

  /**
   * A cluster stanza: the server and its CA.
   *
   * @param caFile a CA file (absolute), or ""
   * @param caData the CA's PEM (decoded {@code certificate-authority-data}), or ""
   */
  record ClusterInfo(String server, String caFile, String caData, boolean insecure) {}

  /**
   * The current context's credentials, as far as bootstrap cares.
   *
   * @param certificate the client certificate and key, when the user has both and they read
   * @param embedded whether they are {@code client-certificate-data} in the file itself
   * @param problem why the certificate could not be read, or ""
   */
  record Contents(
      ClusterInfo cluster,
      Optional<ClientCertificate> certificate,
      boolean embedded,
      boolean hasOtherCredentials,
      String problem) {}

  /**
   * Reads the current context.
   *
   * @throws KubeconfigException when the file cannot be read or parsed, or names no server
   */
  static Contents read(Path file) throws KubeconfigException {
    Config model;
    try {
      model =
          ApiSerialization.SHARED.unmarshal(
              Files.readString(file, StandardCharsets.UTF_8), Config.class);
    } catch (IOException | RuntimeException e) {
      throw Errors.withCause(
          new KubeconfigException("cannot read " + file + ": " + e.getMessage()), e);
    }
    if (model == null) {
      throw new KubeconfigException(file + " is empty");
    }
    Path dir = file.toAbsolutePath().getParent();
    Context ctx =
        find(model.getContexts(), NamedContext::getName, model.getCurrentContext())
            .map(NamedContext::getContext)
            .orElse(null);
    Cluster cluster =
        ctx == null
            ? null
            : find(model.getClusters(), NamedCluster::getName, ctx.getCluster())
                .map(NamedCluster::getCluster)
                .orElse(null);
    if (cluster == null || cluster.getServer() == null || cluster.getServer().isBlank()) {
      throw new KubeconfigException(
          file + " names no server (its current context has no cluster with a server)");
    }
    ClusterInfo info =
        new ClusterInfo(
            cluster.getServer(),
            resolve(dir, cluster.getCertificateAuthority()),
            decode(cluster.getCertificateAuthorityData()),
            Boolean.TRUE.equals(cluster.getInsecureSkipTlsVerify()));
    AuthInfo user =
        find(model.getUsers(), NamedAuthInfo::getName, ctx.getUser())
            .map(NamedAuthInfo::getUser)
            .orElse(null);
    if (user == null) {
      return new Contents(info, Optional.empty(), false, false, "no user in the current context");
    }
    boolean other =
        notEmpty(user.getToken()) || notEmpty(user.getTokenFile()) || user.getExec() != null;
    boolean embedded = notEmpty(user.getClientCertificateData());
    try {
      String cert =
          embedded
              ? decode(user.getClientCertificateData())
              : readIf(resolve(dir, user.getClientCertificate()));
      String key =
          notEmpty(user.getClientKeyData())
              ? decode(user.getClientKeyData())
              : readIf(resolve(dir, user.getClientKey()));
      if (cert.isEmpty() || key.isEmpty()) {
        return new Contents(info, Optional.empty(), embedded, other, "no client certificate");
      }
      return new Contents(info, Optional.of(Pem.pair(cert, key)), embedded, other, "");
    } catch (IOException | Pem.PemException | RuntimeException e) {
      return new Contents(info, Optional.empty(), embedded, other, e.getMessage());
    }
  }

  /**
   * Writes a kubeconfig of the cluster whose user is the certificate and key in {@code pem} (both
   * {@code client-certificate} and {@code client-key}), as upstream's bootstrap writes it: mode
   * 0600, replacing the old file in one rename.
   */
  static void write(Path file, ClusterInfo cluster, Path pem) throws IOException {
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("server", cluster.server());
    if (!cluster.caFile().isEmpty()) {
      c.put("certificate-authority", cluster.caFile());
    } else if (!cluster.caData().isEmpty()) {
      c.put(
          "certificate-authority-data",
          Base64.getEncoder().encodeToString(cluster.caData().getBytes(StandardCharsets.US_ASCII)));
    }
    if (cluster.insecure()) {
      c.put("insecure-skip-tls-verify", true);
    }
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("apiVersion", "v1");
    doc.put("kind", "Config");
    doc.put("clusters", List.of(named("default-cluster", "cluster", c)));
    Map<String, Object> context = new LinkedHashMap<>();
    context.put("cluster", "default-cluster");
    context.put("namespace", "default");
    context.put("user", "default-auth");
    doc.put("contexts", List.of(named("default-context", "context", context)));
    doc.put("current-context", "default-context");
    Map<String, Object> user = new LinkedHashMap<>();
    user.put("client-certificate", pem.toString());
    user.put("client-key", pem.toString());
    doc.put("users", List.of(named("default-auth", "user", user)));
    replace(file, YAML.writeValueAsString(doc));
  }

  /**
   * Points the current context's user of an existing kubeconfig at {@code pem} (its {@code
   * client-certificate} and {@code client-key}, without the {@code -data} ones), keeping every name
   * and everything else in it, as kubeadm's {@code kubelet-finalize} phase rewrites {@code
   * kubelet.conf}. That phase then finds its user, {@code system:node:<name>}, where it left it.
   * Written as {@link #write}.
   *
   * @throws IOException when the file cannot be read or written, or has no current user
   */
  static void pointUserAt(Path file, Path pem) throws IOException {
    JsonNode doc = YAML.readTree(Files.readString(file, StandardCharsets.UTF_8));
    String context = doc.path("current-context").asText("");
    String userName = "";
    for (JsonNode c : doc.path("contexts")) {
      if (context.equals(c.path("name").asText())) {
        userName = c.path("context").path("user").asText("");
      }
    }
    ObjectNode user = null;
    for (JsonNode u : doc.path("users")) {
      if (userName.equals(u.path("name").asText()) && u.path("user") instanceof ObjectNode o) {
        user = o;
      }
    }
    if (user == null) {
      throw new IOException(file + " has no user in its current context " + context);
    }
    user.remove(List.of("client-certificate-data", "client-key-data"));
    user.put("client-certificate", pem.toString());
    user.put("client-key", pem.toString());
    replace(file, YAML.writeValueAsString(doc));
  }

  private static void replace(Path file, String content) throws IOException {
    Path abs = file.toAbsolutePath();
    Files.createDirectories(abs.getParent());
    Path tmp = abs.resolveSibling(abs.getFileName() + ".tmp");
    Files.deleteIfExists(tmp);
    Files.createFile(
        tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(tmp, content, StandardCharsets.UTF_8);
    Files.move(tmp, abs, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  private static Map<String, Object> named(String name, String key, Object value) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", name);
    m.put(key, value);
    return m;
  }

  private static <T> Optional<T> find(
      List<T> items, java.util.function.Function<T, String> name, String wanted) {
    if (items == null || wanted == null) {
      return Optional.empty();
    }
    return items.stream().filter(i -> wanted.equals(name.apply(i))).findFirst();
  }

  private static String readIf(String path) throws IOException {
    return path.isEmpty() ? "" : Files.readString(Path.of(path), StandardCharsets.US_ASCII);
  }

  private static String resolve(Path dir, String file) {
    return file == null || file.isEmpty() ? "" : dir.resolve(file).normalize().toString();
  }

  private static String decode(String base64) {
    return base64 == null || base64.isEmpty()
        ? ""
        : new String(Base64.getMimeDecoder().decode(base64), StandardCharsets.US_ASCII);
  }

  private static boolean notEmpty(String s) {
    return s != null && !s.isEmpty();
  }
}
