package io.jkubelet.agent.certificates;

/**
 * What happened to the node's client or serving certificate, for the node's events. Upstream v1.20
 * records no events here (it only logs), so the reasons are jkubelet's, named in upstream's style;
 * the CSR conditions' own reasons (such as {@code AutoApproved} or {@code SignerValidationFailure})
 * are carried in the messages.
 *
 * <p>Each event is also a log line, written where it happens; a {@link Listener} turns them into
 * Events on the Node (the agent's {@code EventRecorder}, with {@code Refs.node}).
 */
public sealed interface CertificateEvent {
  String REQUESTED = "CertificateRequested";
  String PENDING = "CertificatePending";
  String APPROVED_NOT_ISSUED = "CertificateApprovedNotIssued";
  String ISSUED = "CertificateIssued";
  String DENIED = "CertificateDenied";
  String FAILED = "CertificateFailed";
  String UNUSABLE = "CertificateUnusable";
  String ROTATED = "CertificateRotated";
  String REQUEST_FAILED = "CertificateRequestFailed";

  /** The event's reason, one of the constants above. */
  default String reason() {
    return switch (this) {
      case Requested r -> REQUESTED;
      case Pending p -> PENDING;
      case ApprovedNotIssued a -> APPROVED_NOT_ISSUED;
      case Issued i -> ISSUED;
      case Denied d -> DENIED;
      case Failed f -> FAILED;
      case Unusable u -> UNUSABLE;
      case RequestFailed r -> REQUEST_FAILED;
      case Rotated r -> ROTATED;
    };
  }

  /** Whether it is a Warning (else Normal): a pending serving CSR and every failure are. */
  default boolean warning() {
    return switch (this) {
      case Requested r -> false;
      case Issued i -> false;
      case Rotated r -> false;
      case Pending p -> p.kind().pendingIsWarning();
      case ApprovedNotIssued a -> true;
      case Denied d -> true;
      case Failed f -> true;
      case Unusable u -> true;
      case RequestFailed r -> true;
    };
  }

  /** The event's message. */
  String message();

  /** Receives the events; called on the thread that requests the certificate; must not block. */
  @FunctionalInterface
  interface Listener {
    void on(CertificateEvent event);

    Listener NONE = e -> {};
  }

  /**
   * A CSR was filed, or a pending one of the same key found ({@code reused}).
   *
   * @param what "client" or "serving"
   */
  record Requested(String csr, boolean reused, String what) implements CertificateEvent {
    public String message() {
      return reused
          ? "Waiting on the pending certificate signing request " + csr
          : "Requested a " + what + " certificate: certificate signing request " + csr;
    }
  }

  /**
   * A CSR waits for approval that only an admin or an approver gives (a serving CSR): until then
   * the kubelet API keeps its self-signed certificate.
   */
  record Pending(String csr, CertificateKind kind) implements CertificateEvent {
    public String message() {
      return "Certificate signing request "
          + csr
          + " for the "
          + kind.what()
          + " certificate (signer "
          + kind.signer()
          + ") is pending; the kube-controller-manager does not approve it: approve it with"
          + " `kubectl certificate approve "
          + csr
          + "`"
          + (kind.equals(CertificateKind.SERVING)
              ? "; until then the kubelet API serves its self-signed certificate"
              : "");
    }
  }

  /** Approved, but no certificate yet: nothing signs for the kubelet's signer (kubeadm#2091). */
  record ApprovedNotIssued(String csr, String signer) implements CertificateEvent {
    public String message() {
      return "Certificate signing request "
          + csr
          + " is approved but no certificate has been issued yet; is a signer for "
          + signer
          + " running (kube-controller-manager --cluster-signing-cert-file)?";
    }
  }

  /** The certificate arrived and is usable. */
  record Issued(String csr, String certificate) implements CertificateEvent {
    public String message() {
      return "Certificate signing request " + csr + " is issued: " + certificate;
    }
  }

  /** Denied: the condition's reason and message. */
  record Denied(String csr, String conditionReason, String conditionMessage)
      implements CertificateEvent {
    public String message() {
      return ended(csr, "is denied", conditionReason, conditionMessage);
    }
  }

  /** The signer failed it: the condition's reason and message. */
  record Failed(String csr, String conditionReason, String conditionMessage)
      implements CertificateEvent {
    public String message() {
      return ended(csr, "failed", conditionReason, conditionMessage);
    }
  }

  /** A certificate arrived that cannot be used: expired, not yet valid, or not for this key. */
  record Unusable(String csr, String why) implements CertificateEvent {
    public String message() {
      return "The certificate issued for certificate signing request " + csr + " " + why;
    }
  }

  /** A request ended without a certificate; it is retried after {@code retryIn}. */
  record RequestFailed(String problem, java.time.Duration retryIn, String what)
      implements CertificateEvent {
    public String message() {
      return "Unable to get a " + what + " certificate (retrying in " + retryIn + "): " + problem;
    }
  }

  /** A new certificate is current. */
  record Rotated(String certificate, String what) implements CertificateEvent {
    public String message() {
      return "Rotated the " + what + " certificate; now using " + certificate;
    }
  }

  /** The message of a CSR that a condition ended: denied or failed. */
  private static String ended(String csr, String how, String reason, String message) {
    return "Certificate signing request "
        + csr
        + " "
        + how
        + ", reason: "
        + reason
        + ", message: "
        + message;
  }
}
