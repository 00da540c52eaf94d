package io.jkubelet.agent.certificates;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.certificates.v1.CertificateSigningRequestCondition;
import io.fabric8.kubernetes.api.model.certificates.v1.CertificateSigningRequestConditionBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.internal.SSLUtils;
import io.jkubelet.agent.util.Time;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import javax.net.ssl.KeyManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ApiSigningRequests} against a real kube-apiserver v1.20 and its controller manager: the
 * {@link SigningRequestsContract}, then TLS bootstrap with a bootstrap token and a renewal sent as
 * the node. The test makes (and deletes) the token Secret and the RBAC it needs with the admin
 * client.
 *
 * <p>The control plane needs: the API server's {@code --enable-bootstrap-token-auth} and {@code
 * --authorization-mode=Node,RBAC}; the controller manager's {@code csrapproving} and {@code
 * csrsigning} controllers with {@code --cluster-signing-cert-file}/{@code
 * --cluster-signing-key-file} of the CA the API server trusts for clients ({@code
 * --client-ca-file}), with a signing duration of more than six minutes.
 */
class ApiSigningRequestsApiTest extends SigningRequestsContract {
  private static final String ENV = "JKUBELET_TEST_KUBECONFIG";
  private static Config config;
  private static KubernetesClient admin;

  @TempDir Path tmp;
  private final List<String> csrs = new ArrayList<>();
  private final List<Runnable> cleanups = new ArrayList<>();
  private final String id = UUID.randomUUID().toString().replace("-", "").substring(0, 6);
  private final RecordingListener events = new RecordingListener();

  @BeforeAll
  static void cluster() {
    String path = System.getenv(ENV);
    if (path == null || path.isBlank()) {
      fail(
          ENV
              + " is not set. These tests need a real API server: run"
              + " `deploy/scripts/k8s-up.sh STATE_DIR` and set "
              + ENV
              + " to the kubeconfig path it prints.");
    }
    if (!new File(path).isFile()) {
      fail(ENV + "=" + path + " is not a file; deploy/scripts/k8s-up.sh prints the right path.");
    }
    config = Config.fromKubeconfig(new File(path));
    admin = new KubernetesClientBuilder().withConfig(config).build();
  }

  @AfterAll
  static void closeAdmin() {
    if (admin != null) {
      admin.close();
    }
  }

  @AfterEach
  void cleanUp() {
    events.events.stream()
        .filter(e -> e instanceof CertificateEvent.Requested)
        .map(e -> ((CertificateEvent.Requested) e).csr())
        .forEach(csrs::add);
    csrs.forEach(n -> admin.certificates().v1().certificateSigningRequests().withName(n).delete());
    cleanups.forEach(Runnable::run);
  }

  @Override
  protected String uniqueName() {
    String name = super.uniqueName();
    csrs.add(name);
    return name;
  }

  @Override
  protected SigningRequests api() {
    return new ApiSigningRequests(admin, false);
  }

  private static CertificateSigningRequestCondition condition(
      String type, String reason, String message) {
    return new CertificateSigningRequestConditionBuilder()
        .withType(type)
        .withStatus("True")
        .withReason(reason)
        .withMessage(message)
        .build();
  }

  @Override
  protected void approve(String name) {
    admin
        .certificates()
        .v1()
        .certificateSigningRequests()
        .withName(name)
        .approve(condition("Approved", "TestApproved", "approved by the test"));
  }

  @Override
  protected void deny(String name, String reason, String message) {
    admin
        .certificates()
        .v1()
        .certificateSigningRequests()
        .withName(name)
        .deny(condition("Denied", reason, message));
  }

  /**
   * Sets the certificate unless the controller manager's signer was first. The signer may sign
   * between this read and this write (the request is approved); the write then meets a conflict and
   * is tried again on what the signer left.
   */
  @Override
  protected void issue(String name, String certificatePem) {
    var csrs = admin.certificates().v1().certificateSigningRequests();
    for (int attempt = 1; ; attempt++) {
      var csr = csrs.withName(name).get();
      String current = csr.getStatus() == null ? null : csr.getStatus().getCertificate();
      if (current != null && !current.isEmpty()) {
        return; // the controller manager's signer was first
      }
      csr.getStatus()
          .setCertificate(
              Base64.getEncoder()
                  .encodeToString(certificatePem.getBytes(StandardCharsets.US_ASCII)));
      try {
        csrs.resource(csr).updateStatus();
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409 || attempt == 5) {
          throw e;
        }
      }
    }
  }

  /** A bootstrap token with the RBAC of kubeadm's: request node certificates, auto-approved. */
  private String bootstrapToken() {
    String secret = UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    String group = "system:bootstrappers:jkubelet-test-" + id;
    admin
        .secrets()
        .inNamespace("kube-system")
        .resource(
            new SecretBuilder()
                .withNewMetadata()
                .withName("bootstrap-token-" + id)
                .withNamespace("kube-system")
                .endMetadata()
                .withType("bootstrap.kubernetes.io/token")
                .addToStringData("token-id", id)
                .addToStringData("token-secret", secret)
                .addToStringData("usage-bootstrap-authentication", "true")
                .addToStringData("auth-extra-groups", group)
                .build())
        .create();
    cleanups.add(
        () ->
            admin.secrets().inNamespace("kube-system").withName("bootstrap-token-" + id).delete());
    bind("bootstrapper", "system:node-bootstrapper", group);
    bind("approve", "system:certificates.k8s.io:certificatesigningrequests:nodeclient", group);
    bind(
        "renew",
        "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient",
        "system:nodes");
    return id + "." + secret;
  }

  private void bind(String what, String role, String group) {
    String name = "jkubelet-test-" + id + "-" + what;
    admin
        .rbac()
        .clusterRoleBindings()
        .resource(
            new ClusterRoleBindingBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewRoleRef()
                .withApiGroup("rbac.authorization.k8s.io")
                .withKind("ClusterRole")
                .withName(role)
                .endRoleRef()
                .addNewSubject()
                .withApiGroup("rbac.authorization.k8s.io")
                .withKind("Group")
                .withName(group)
                .endSubject()
                .build())
        .create();
    cleanups.add(() -> admin.rbac().clusterRoleBindings().withName(name).delete());
  }

  private Path bootstrapKubeconfig(String token) throws Exception {
    String ca =
        config.getCaCertData() != null
            ? config.getCaCertData()
            : Base64.getEncoder()
                .encodeToString(Files.readAllBytes(Path.of(config.getCaCertFile())));
    Path file = tmp.resolve("bootstrap-kubelet.conf");
    Files.writeString(
        file,
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: c
          cluster: {server: "%s", certificate-authority-data: %s}
        contexts:
        - name: b
          context: {cluster: c, user: tls-bootstrap-token-user}
        current-context: b
        users:
        - name: tls-bootstrap-token-user
          user: {token: "%s"}
        """
            .formatted(config.getMasterUrl(), ca, token));
    return file;
  }

  /** fabric8 clients as the agent will make them: the node's with a key manager. */
  private final SigningClients clients =
      new SigningClients() {
        @Override
        public SigningRequests asNode(ClientCertificate certificate) {
          Config c =
              new ConfigBuilder(Config.empty())
                  .withMasterUrl(config.getMasterUrl())
                  .withCaCertData(config.getCaCertData())
                  .withCaCertFile(config.getCaCertFile())
                  .build();
          try {
            var trust = SSLUtils.trustManagers(c);
            return new ApiSigningRequests(
                new KubernetesClientBuilder()
                    .withConfig(c)
                    .withHttpClientBuilderConsumer(
                        b ->
                            b.sslContext(
                                new KeyManager[] {CertificateKeyManager.fixed(certificate)}, trust))
                    .build(),
                true);
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        }

        @Override
        public SigningRequests withBootstrapCredentials(Path bootstrapKubeconfig) {
          return new ApiSigningRequests(
              new KubernetesClientBuilder()
                  .withConfig(Config.fromKubeconfig(bootstrapKubeconfig.toFile()))
                  .build(),
              true);
        }
      };

  @Test
  void aNodeBootstrapsWithATokenThenRenewsAsItself() throws Exception {
    Path bootstrap = bootstrapKubeconfig(bootstrapToken());
    String nodeName = "jkubelet-csr-" + id;
    var options =
        CertificateOptions.of(
            tmp.resolve("kubelet.conf"), bootstrap, tmp.resolve("pki"), true, false);

    Bootstrap.Result result =
        new Bootstrap(options, nodeName, clients, Time.system(), events).load();

    assertThat(result.outcome()).isEqualTo(Bootstrap.Outcome.BOOTSTRAPPED);
    ClientCertificate first = result.certificate().orElseThrow();
    assertThat(first.leaf().getSubjectX500Principal().getName())
        .contains("CN=system:node:" + nodeName);
    // The written kubeconfig names kubelet-client-current.pem for both the certificate and the key,
    // as upstream's; fabric8 cannot read a file holding both, so the pair comes as data.
    KubeconfigFile.Contents written = KubeconfigFile.read(tmp.resolve("kubelet.conf"));
    ClientCertificate fromFile = written.certificate().orElseThrow();
    assertThat(fromFile.serial()).isEqualTo(first.serial());
    Config nodeConfig = Config.fromKubeconfig(tmp.resolve("kubelet.conf").toFile());
    nodeConfig.setClientCertFile(null);
    nodeConfig.setClientKeyFile(null);
    nodeConfig.setClientCertData(base64(Pem.encode(fromFile.chain())));
    nodeConfig.setClientKeyData(base64(Pem.encode(fromFile.key())));
    nodeConfig.setClientKeyAlgo(fromFile.key().getAlgorithm());
    try (KubernetesClient asNode = new KubernetesClientBuilder().withConfig(nodeConfig).build()) {
      assertThat(asNode.certificates().v1().certificateSigningRequests().list().getItems())
          .as("the written kubeconfig authenticates as the node")
          .isNotNull();
    }

    var manager =
        RotatingCertificateManager.client(
            options, nodeName, clients, Time.system(), events, () -> 0.0);
    manager.start();
    try {
      manager.rotate();
      ClientCertificate renewed = manager.current().orElseThrow();
      assertThat(renewed.serial()).isNotEqualTo(first.serial());
      String renewal =
          events.events.stream()
              .filter(e -> e instanceof CertificateEvent.Requested)
              .map(e -> ((CertificateEvent.Requested) e).csr())
              .reduce((a, b) -> b)
              .orElseThrow();
      assertThat(
              admin
                  .certificates()
                  .v1()
                  .certificateSigningRequests()
                  .withName(renewal)
                  .get()
                  .getSpec()
                  .getUsername())
          .as("the renewal is sent as the node")
          .isEqualTo("system:node:" + nodeName);
    } finally {
      manager.stop();
    }
  }

  @Test
  void aRefusedBootstrapTokenIsAnErrorNamingTheFile() throws Exception {
    Path bootstrap = bootstrapKubeconfig("abcdef.0123456789abcdef");
    var options =
        CertificateOptions.of(
            tmp.resolve("kubelet.conf"), bootstrap, tmp.resolve("pki"), false, false);

    assertThatThrownBy(
            () ->
                new Bootstrap(options, "jkubelet-csr-" + id, clients, Time.system(), events).load())
        .isInstanceOf(Bootstrap.BootstrapException.class)
        .hasMessageContaining(bootstrap.toString())
        .hasMessageContaining("401");
  }

  private static String base64(String pem) {
    return java.util.Base64.getEncoder()
        .encodeToString(pem.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }
}
