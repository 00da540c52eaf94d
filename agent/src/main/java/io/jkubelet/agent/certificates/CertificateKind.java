package io.jkubelet.agent.certificates;

import java.util.List;

/**
 * Which of the node's two certificates a request or a manager is for: what tells upstream's client
 * certificate manager (pkg/kubelet/certificate/kubelet.go) from its serving certificate manager.
 * Both are requested, stored and rotated by the same code; only these differ.
 *
 * @param what "client" or "serving", for log lines and event messages
 * @param prefix the store's file names in the cert dir ({@code <prefix>-current.pem})
 * @param signer the CSR's {@code spec.signerName}
 * @param usages the CSR's {@code spec.usages}
 * @param thread the name of the rotation thread
 * @param pendingIsWarning whether a CSR waiting for approval is a Warning event (serving CSRs are
 *     not approved by the controller manager: an admin or an approver must act)
 */
record CertificateKind(
    String what,
    String prefix,
    String signer,
    List<String> usages,
    String thread,
    boolean pendingIsWarning) {
  /** The client certificate: upstream's {@code kubernetes.io/kube-apiserver-client-kubelet}. */
  public static final CertificateKind CLIENT =
      new CertificateKind(
          "client",
          "kubelet-client",
          "kubernetes.io/kube-apiserver-client-kubelet",
          List.of("digital signature", "key encipherment", "client auth"),
          "certificate-rotation",
          false);

  /** The serving certificate of port 10250: upstream's {@code kubernetes.io/kubelet-serving}. */
  public static final CertificateKind SERVING =
      new CertificateKind(
          "serving",
          "kubelet-server",
          "kubernetes.io/kubelet-serving",
          List.of("digital signature", "key encipherment", "server auth"),
          "serving-certificate-rotation",
          true);

  public CertificateKind {
    usages = List.copyOf(usages);
  }
}
