package io.jkubelet.agent.client;

import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.internal.SSLUtils;
import io.jkubelet.agent.certificates.CertificateEvent;
import io.jkubelet.agent.certificates.CertificateKeyManager;
import io.jkubelet.agent.certificates.CertificateManager;
import io.jkubelet.agent.certificates.CertificateOptions;
import io.jkubelet.agent.certificates.ClientCertificate;
import io.jkubelet.agent.certificates.ClientCertificateManager;
import io.jkubelet.agent.certificates.SigningClients;
import io.jkubelet.agent.certificates.SigningRequests;
import io.jkubelet.agent.certificates.StoreException;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.node.NodeStatusManager;
import io.jkubelet.agent.util.Lifecycle;
import io.jkubelet.agent.util.Time;
import io.jkubelet.config.ConfigException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Consumer;
import javax.net.ssl.KeyManager;
import javax.net.ssl.TrustManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's client certificate at start-up, in the order of upstream's {@code server.go}: TLS
 * bootstrap ({@link ClientCertificateManager#bootstrap}, when {@code --bootstrap-kubeconfig} is
 * given or rotation is on) before {@code --kubeconfig} is read; then, when the kubeconfig
 * authenticates with a client certificate that jkubelet manages, the identity every API client
 * presents ({@link #tls}): with rotation, the {@link ClientCertificateManager}'s current
 * certificate, whose rotations renew the clients' connections ({@link ClientIdentity#renew});
 * without, the kubeconfig's certificate.
 *
 * <p>fabric8 reads neither a PEM file holding both the certificate and the key (as bootstrap writes
 * {@code kubelet-client-current.pem} and the kubeconfig names it twice) nor an EC key without its
 * algorithm, so a managed certificate is taken off the clients' configuration ({@link #load}'s
 * result) and presented by the key manager instead. A kubeconfig of separate certificate and key
 * files, without bootstrap or rotation, or one with a token, is left to fabric8 as before.
 *
 * <p>Lifecycle: {@link #load} (blocks while bootstrap retries), then {@link #start} before any API
 * client is built, {@link #stop} after the agent stopped. Not thread-safe: used by the start-up and
 * shutdown threads in turn.
 */
public final class ClientCertificates implements Lifecycle {
  private static final Logger log = LoggerFactory.getLogger(ClientCertificates.class);

  private final CertificateOptions options;
  private final String nodeName;
  private final Time time;
  private final CertificateEvent.Listener events;
  private Config base;
  private TrustManager[] trust;
  private ClientIdentity identity;
  private ClientCertificateManager manager;

  /**
   * @param options with {@code kubeconfig} set (cluster mode)
   * @param recorder where the certificate's events go, on the Node
   */
  public ClientCertificates(
      CertificateOptions options, String nodeName, Time time, EventRecorder recorder) {
    if (options.kubeconfig() == null) {
      throw new IllegalArgumentException("certificates are wired in cluster mode only");
    }
    this.options = options;
    this.nodeName = nodeName;
    this.time = time;
    this.events = events(recorder, nodeName);
  }

  /** The certificate's events as Events on the Node, Warning or Normal as each says. */
  static CertificateEvent.Listener events(EventRecorder recorder, String nodeName) {
    ObjectReference node = Refs.node(nodeName);
    return e ->
        recorder.event(
            node, e.warning() ? EventType.Warning : EventType.Normal, e.reason(), e.message());
  }

  /**
   * Bootstraps when needed (retrying until it succeeds), then reads {@code --kubeconfig}.
   *
   * @return the API clients' configuration, without the managed client certificate
   * @throws ConfigException for a kubeconfig or certificate directory that cannot be used
   */
  public Config load() throws InterruptedException {
    Optional<ClientCertificate> cert = Optional.empty();
    if (options.bootstrapNeeded()) {
      cert = ClientCertificateManager.bootstrap(options, nodeName, new Clients(), time, events);
    }
    Config config = Kubeconfig.load(options.kubeconfig(), time.clock());
    if (cert.isEmpty() && bothInOneFile(config)) {
      cert = Optional.of(readPair(Path.of(config.getClientCertFile())));
    }
    base = config;
    if (cert.isEmpty()) {
      return base;
    }
    config.setClientCertFile(null);
    config.setClientKeyFile(null);
    config.setClientCertData(null);
    config.setClientKeyData(null);
    try {
      trust = SSLUtils.trustManagers(config);
    } catch (Exception e) {
      throw new ConfigException(
          "--kubeconfig",
          "the certificate authority of " + options.kubeconfig() + " cannot be used: " + e);
    }
    if (options.rotationEnabled()) {
      ClientCertificateManager.seed(options, cert.get(), time.clock());
      manager = ClientCertificateManager.create(options, nodeName, new Clients(), time, events);
      identity = new ClientIdentity(CertificateKeyManager.of(manager));
      ClientIdentity renewing = identity;
      manager.onRotated(
          c ->
              log.info(
                  "Certificate rotation: closed {} API connections made with the previous"
                      + " certificate",
                  renewing.renew()));
    } else {
      identity = new ClientIdentity(CertificateKeyManager.fixed(cert.get()));
      log.info(
          "Client certificate: {} (not rotated: --rotate-certificates is off)",
          cert.get().describe());
    }
    return base;
  }

  /**
   * The API clients, after {@link #load}: each presents the managed identity and gets {@code
   * intercept} (request metrics).
   */
  public ApiClients clients(Consumer<HttpClient.Builder> intercept) {
    if (base == null) {
      throw new IllegalStateException("the kubeconfig is not loaded yet");
    }
    return new ApiClients(base, tls(), intercept);
  }

  /**
   * What every API client's HTTP builder gets: the managed identity and the kubeconfig's trust;
   * nothing when fabric8 handles the kubeconfig's credentials itself.
   */
  Consumer<HttpClient.Builder> tls() {
    ClientIdentity id = identity;
    TrustManager[] t = trust;
    return id == null ? b -> {} : b -> b.sslContext(new KeyManager[] {id}, t);
  }

  /**
   * The serving certificate's manager with {@code serverTLSBootstrap} (not started: the kubelet API
   * starts it), else null: its CSRs go out on {@code client} (the node's), for the addresses of the
   * Node as {@code node} last reported it.
   */
  public CertificateManager serving(KubernetesClient client, NodeStatusManager node) {
    if (!options.servingEnabled()) {
      return null;
    }
    return CertificateManager.serving(
        options,
        nodeName,
        () ->
            node.lastReported()
                .filter(n -> n.getStatus() != null)
                .map(n -> n.getStatus().getAddresses()),
        SigningRequests.over(client, false),
        time,
        events);
  }

  /** Starts the rotation, when on: before any API client is built. */
  @Override
  public void start() {
    if (manager != null) {
      manager.start();
    }
  }

  @Override
  public void stop() {
    if (manager != null) {
      manager.stop();
    }
  }

  /** The client certificate's health: failing once it has expired and no new one came. */
  @Override
  public Health healthy() {
    return manager == null ? Health.OK : manager.healthy();
  }

  /** Whether the kubeconfig names one file for both the certificate and the key. */
  private static boolean bothInOneFile(Config config) {
    String cert = config.getClientCertFile();
    return cert != null && !cert.isEmpty() && cert.equals(config.getClientKeyFile());
  }

  private ClientCertificate readPair(Path pem) {
    try {
      return ClientCertificate.read(pem);
    } catch (StoreException e) {
      throw new ConfigException("--kubeconfig", e.getMessage());
    }
  }

  /** The agent's clients for CSRs, each for one request, on the shared HTTP engine. */
  private final class Clients implements SigningClients {
    @Override
    public SigningRequests asNode(ClientCertificate certificate) {
      if (base == null) {
        throw new IllegalStateException("the kubeconfig is not loaded yet");
      }
      KeyManager[] keys = {CertificateKeyManager.fixed(certificate)};
      TrustManager[] t = trust;
      return SigningRequests.over(
          ApiHttpClients.small(new KubernetesClientBuilder().withConfig(base))
              .withHttpClientBuilderConsumer(b -> b.sslContext(keys, t))
              .build(),
          true);
    }

    @Override
    public SigningRequests withBootstrapCredentials(Path bootstrapKubeconfig) {
      Config c;
      try {
        c = Kubeconfig.load(bootstrapKubeconfig, time.clock());
      } catch (ConfigException e) {
        throw new IllegalArgumentException(e.problem(), e);
      }
      return SigningRequests.over(
          ApiHttpClients.small(new KubernetesClientBuilder().withConfig(c)).build(), true);
    }
  }
}
