package io.jkubelet.agent.certificates;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.jkubelet.agent.util.RuntimeFailure;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The part of the {@code certificates.k8s.io/v1} CertificateSigningRequest API that a node uses,
 * with one set of credentials. {@link #over} is the real one; tests use a hand-written fake held to
 * the same contract. Closing releases the client it was made with.
 */
public interface SigningRequests extends AutoCloseable {
  /**
   * Creates a CSR named {@code name}.
   *
   * @return the created object (its {@code uid} set by the server)
   * @throws ApiException with code 409 ({@link ApiException#alreadyExists()}) when the name is
   *     taken, or the server's refusal (401 for a refused token, 403 when not allowed)
   */
  Csr create(String name, String requestPem, String signerName, List<String> usages);

  /**
   * The CSR named {@code name}; empty when there is none.
   *
   * @throws ApiException when the server refuses or fails
   */
  Optional<Csr> get(String name);

  /**
   * Returns once the CSR differs from {@code resourceVersion} (or is deleted), or after at most
   * {@code max}, whichever is first. It may return early without a change; callers read the CSR
   * again either way.
   */
  void awaitChange(String name, String resourceVersion, Duration max) throws InterruptedException;

  @Override
  default void close() {}

  /**
   * The CSR API through fabric8's {@code client}, with its credentials.
   *
   * @param owned whether {@link #close} closes the client: false for a client shared beyond one
   *     request
   */
  static SigningRequests over(KubernetesClient client, boolean owned) {
    return new ApiSigningRequests(client, owned);
  }

  /**
   * A CSR as read from the API.
   *
   * @param requestPem {@code spec.request}, decoded: the PEM request
   * @param certificatePem {@code status.certificate}, decoded; "" until issued
   */
  record Csr(
      String name,
      String uid,
      String resourceVersion,
      String requestPem,
      String signerName,
      List<String> usages,
      List<Condition> conditions,
      String certificatePem) {
    public Csr {
      usages = List.copyOf(usages);
      conditions = List.copyOf(conditions);
      certificatePem = certificatePem == null ? "" : certificatePem;
      signerName = signerName == null ? "" : signerName;
    }

    /** The first condition of the type, if any. */
    public Optional<Condition> condition(String type) {
      return conditions.stream().filter(c -> c.type().equals(type)).findFirst();
    }
  }

  /** A status condition: {@code Approved}, {@code Denied} or {@code Failed}. */
  record Condition(String type, String reason, String message) {
    public static final String APPROVED = "Approved";
    public static final String DENIED = "Denied";
    public static final String FAILED = "Failed";

    public Condition {
      reason = reason == null ? "" : reason;
      message = message == null ? "" : message;
    }
  }

  /** The API server refused or failed a call. */
  final class ApiException extends RuntimeFailure {

    public ApiException(int code, String message) {
      super(code, message);
    }

    /** The HTTP status code; 0 when the server was not reached. */
    public int code() {
      return detail();
    }

    public boolean alreadyExists() {
      return code() == 409;
    }

    /** Whether the credentials were refused (401): a bad or expired token or certificate. */
    public boolean unauthorized() {
      return code() == 401;
    }
  }
}
