package io.jkubelet.agent.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;

/**
 * A bootstrap token and kubeadm's RBAC for TLS bootstrap, made with the admin's kubectl: the
 * token's Secret in kube-system (its own extra group), that group bound to {@code
 * system:node-bootstrapper} and to the auto-approval of {@code nodeclient} CSRs, and {@code
 * system:nodes} to the auto-approval of {@code selfnodeclient} renewals, as {@code kubeadm init}
 * binds them. {@link #close} removes all of it.
 */
final class BootstrapTokens implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  final String id = UUID.randomUUID().toString().replace("-", "").substring(0, 6);
  private final List<String[]> cleanups = new ArrayList<>();

  /** Makes a token and the bindings; returns the token ({@code <id>.<secret>}). */
  String create() throws Exception {
    String secret = UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    String group = "system:bootstrappers:jkubelet-e2e-" + id;
    Kubectl.apply(
        "kube-system",
        """
        apiVersion: v1
        kind: Secret
        metadata: {name: bootstrap-token-%s, namespace: kube-system}
        type: bootstrap.kubernetes.io/token
        stringData:
          token-id: "%s"
          token-secret: "%s"
          usage-bootstrap-authentication: "true"
          auth-extra-groups: "%s"
        """
            .formatted(id, id, secret, group));
    cleanups.add(new String[] {"-n", "kube-system", "delete", "secret", "bootstrap-token-" + id});
    bind("bootstrapper", "system:node-bootstrapper", group);
    bind("approve", "system:certificates.k8s.io:certificatesigningrequests:nodeclient", group);
    bind(
        "renew",
        "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient",
        "system:nodes");
    return id + "." + secret;
  }

  private void bind(String what, String role, String group) throws Exception {
    String name = "jkubelet-e2e-" + id + "-" + what;
    Kubectl.run("create", "clusterrolebinding", name, "--clusterrole=" + role, "--group=" + group)
        .ok();
    cleanups.add(new String[] {"delete", "clusterrolebinding", name});
  }

  /** A bootstrap kubeconfig as kubeadm writes it: the cluster's server and CA, and the token. */
  static Path kubeconfig(Path file, String token) throws Exception {
    String server =
        Kubectl.run(
                "config",
                "view",
                "--raw",
                "--minify",
                "-o",
                "jsonpath={.clusters[0].cluster.server}")
            .ok()
            .out()
            .trim();
    String ca =
        Kubectl.run(
                "config",
                "view",
                "--raw",
                "--minify",
                "--flatten",
                "-o",
                "jsonpath={.clusters[0].cluster.certificate-authority-data}")
            .ok()
            .out()
            .trim();
    Files.writeString(
        file,
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: kubernetes
          cluster: {server: "%s", certificate-authority-data: %s}
        contexts:
        - name: tls-bootstrap-token-user@kubernetes
          context: {cluster: kubernetes, user: tls-bootstrap-token-user}
        current-context: tls-bootstrap-token-user@kubernetes
        users:
        - name: tls-bootstrap-token-user
          user: {token: "%s"}
        """
            .formatted(server, ca, token));
    return file;
  }

  /** The node-client CSRs, as {@code kubectl get csr -o json} lists them, of this signer. */
  static List<JsonNode> nodeClientCsrs() throws Exception {
    List<JsonNode> out = new ArrayList<>();
    JSON.readTree(Kubectl.run("get", "csr", "-o", "json").ok().out())
        .path("items")
        .forEach(
            csr -> {
              if ("kubernetes.io/kube-apiserver-client-kubelet"
                  .equals(csr.path("spec").path("signerName").asText())) {
                out.add(csr);
              }
            });
    return out;
  }

  /** The certificate a CSR was issued, or null. */
  static X509Certificate issued(JsonNode csr) throws Exception {
    String b64 = csr.path("status").path("certificate").asText("");
    if (b64.isEmpty()) {
      return null;
    }
    return (X509Certificate)
        CertificateFactory.getInstance("X.509")
            .generateCertificate(
                new ByteArrayInputStream(
                    Base64.getDecoder().decode(b64.getBytes(StandardCharsets.US_ASCII))));
  }

  /** Whether the CSR carries a true condition of this type (Approved, Denied, Failed). */
  static boolean has(JsonNode csr, String type) {
    for (JsonNode c : csr.path("status").path("conditions")) {
      if (type.equals(c.path("type").asText())) {
        return true;
      }
    }
    return false;
  }

  @Override
  public void close() throws Exception {
    for (String[] args : cleanups) {
      Kubectl.run(args);
    }
  }
}
