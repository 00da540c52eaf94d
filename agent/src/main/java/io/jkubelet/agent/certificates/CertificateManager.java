package io.jkubelet.agent.certificates;

import io.fabric8.kubernetes.api.model.NodeAddress;
import io.jkubelet.agent.util.Lifecycle;
import io.jkubelet.agent.util.Time;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One of the node's certificates, kept current, as client-go's {@code certificate.Manager}: read
 * from its store at {@link #start}, renewed at a jittered 70 to 90 % of its lifetime with a new key
 * by a CSR. The client certificate's is a {@link ClientCertificateManager}; {@link #serving} is the
 * serving certificate's.
 */
public interface CertificateManager extends Lifecycle {
  /** The current certificate; empty before {@link #start}, when there is none, or once expired. */
  Optional<ClientCertificate> current();

  /**
   * Calls {@code listener} with each new certificate, after it is stored and current (on the
   * rotation thread; it must not block), e.g. to close the clients' old connections.
   */
  void onRotated(Consumer<ClientCertificate> listener);

  /**
   * The serving certificate's manager, as upstream's {@code NewKubeletServerCertificateManager}
   * ({@code serverTLSBootstrap}): {@code kubelet-server-current.pem} in {@code options.certDir()},
   * requested from the signer {@code kubernetes.io/kubelet-serving} for the names of the Node's
   * status {@code addresses} (empty until the Node has reported some), and requested again when
   * they change.
   *
   * @param api the client requests are sent with (the node's own), closed after each request: its
   *     {@code close} must leave a shared client open ({@link SigningRequests#over} not owning it)
   */
  static CertificateManager serving(
      CertificateOptions options,
      String nodeName,
      Supplier<Optional<List<NodeAddress>>> addresses,
      SigningRequests api,
      Time time,
      CertificateEvent.Listener events) {
    return RotatingCertificateManager.serving(
        options, nodeName, () -> addresses.get().map(Sans::fromNodeAddresses), api, time, events);
  }
}
