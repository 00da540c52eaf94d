/**
 * The kubelet's client certificate, as upstream's {@code pkg/kubelet/certificate}: TLS bootstrap
 * with a bootstrap kubeconfig, the certificate store in {@code --cert-dir}, and rotation by
 * CertificateSigningRequests sent as the node.
 */
package io.jkubelet.agent.certificates;
