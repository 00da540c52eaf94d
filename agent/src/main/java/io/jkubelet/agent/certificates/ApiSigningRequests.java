package io.jkubelet.agent.certificates;

import io.fabric8.kubernetes.api.model.certificates.v1.CertificateSigningRequest;
import io.fabric8.kubernetes.api.model.certificates.v1.CertificateSigningRequestBuilder;
import io.fabric8.kubernetes.api.model.certificates.v1.CertificateSigningRequestCondition;
import io.fabric8.kubernetes.api.model.certificates.v1.CertificateSigningRequestList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.CertificateSigningRequestResource;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.jkubelet.agent.util.Errors;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@link SigningRequests} on a fabric8 client of {@code certificates.k8s.io/v1}. Waiting is a watch
 * of the one CSR from the version last read, so a change made meanwhile is not missed.
 */
final class ApiSigningRequests implements SigningRequests {
  private final KubernetesClient client;
  private final boolean owned;

  /**
   * @param client the client, with the credentials the requests are sent with
   * @param owned whether {@link #close} closes the client
   */
  ApiSigningRequests(KubernetesClient client, boolean owned) {
    this.client = client;
    this.owned = owned;
  }

  private NonNamespaceOperation<
          CertificateSigningRequest,
          CertificateSigningRequestList,
          CertificateSigningRequestResource<CertificateSigningRequest>>
      csrs() {
    return client.certificates().v1().certificateSigningRequests();
  }

  @Override
  public Csr create(String name, String requestPem, String signerName, List<String> usages) {
    CertificateSigningRequest csr =
        new CertificateSigningRequestBuilder()
            .withNewMetadata()
            .withName(name)
            .endMetadata()
            .withNewSpec()
            .withRequest(
                Base64.getEncoder().encodeToString(requestPem.getBytes(StandardCharsets.US_ASCII)))
            .withSignerName(signerName)
            .withUsages(usages)
            .endSpec()
            .build();
    try {
      return from(csrs().resource(csr).create());
    } catch (KubernetesClientException e) {
      throw translate("cannot create certificate signing request " + name, e);
    }
  }

  @Override
  public Optional<Csr> get(String name) {
    try {
      return Optional.ofNullable(csrs().withName(name).get()).map(ApiSigningRequests::from);
    } catch (KubernetesClientException e) {
      throw translate("cannot retrieve certificate signing request " + name, e);
    }
  }

  @Override
  public void awaitChange(String name, String resourceVersion, Duration max)
      throws InterruptedException {
    CountDownLatch changed = new CountDownLatch(1);
    Watcher<CertificateSigningRequest> watcher =
        new Watcher<>() {
          @Override
          public void eventReceived(Action action, CertificateSigningRequest csr) {
            changed.countDown();
          }

          @Override
          public void onClose(WatcherException cause) {
            changed.countDown();
          }
        };
    Watch watch;
    try {
      watch = csrs().withName(name).watch(resourceVersion, watcher);
    } catch (KubernetesClientException e) {
      // Nothing to wait on (a 410 for an old version, say): the caller reads the CSR again.
      return;
    }
    try {
      changed.await(max.toNanos(), TimeUnit.NANOSECONDS);
    } finally {
      watch.close();
    }
  }

  @Override
  public void close() {
    if (owned) {
      client.close();
    }
  }

  static Csr from(CertificateSigningRequest csr) {
    var spec = csr.getSpec();
    var status = csr.getStatus();
    List<Condition> conditions =
        status == null || status.getConditions() == null
            ? List.of()
            : status.getConditions().stream().map(ApiSigningRequests::condition).toList();
    return new Csr(
        csr.getMetadata().getName(),
        csr.getMetadata().getUid(),
        csr.getMetadata().getResourceVersion(),
        decode(spec == null ? null : spec.getRequest()),
        spec == null ? "" : spec.getSignerName(),
        spec == null || spec.getUsages() == null ? List.of() : spec.getUsages(),
        conditions,
        decode(status == null ? null : status.getCertificate()));
  }

  private static Condition condition(CertificateSigningRequestCondition c) {
    return new Condition(c.getType(), c.getReason(), c.getMessage());
  }

  private static String decode(String base64) {
    return base64 == null || base64.isEmpty()
        ? ""
        : new String(Base64.getMimeDecoder().decode(base64), StandardCharsets.US_ASCII);
  }

  private static ApiException translate(String what, KubernetesClientException e) {
    String detail =
        e.getStatus() != null && e.getStatus().getMessage() != null
            ? e.getStatus().getMessage()
            : e.getMessage();
    return Errors.withCause(new ApiException(e.getCode(), what + ": " + detail), e);
  }
}
