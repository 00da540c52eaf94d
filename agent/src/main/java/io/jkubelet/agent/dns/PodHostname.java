package io.jkubelet.agent.dns;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A pod's hostname and domain, as upstream's {@code GeneratePodHostNameAndDomain}: {@code
 * spec.hostname} or the pod's name, cut to 63 characters without a trailing {@code -} or {@code .};
 * the domain is {@code <subdomain>.<namespace>.svc.<clusterDomain>} when the pod has a subdomain.
 * The kernel's hostname (the UTS nodename) is the FQDN when {@code setHostnameAsFQDN} is set, as
 * upstream's {@code GetNodenameForKernel}.
 *
 * @param hostname the pod's short hostname
 * @param domain its domain, or "" without a subdomain
 */
public record PodHostname(String hostname, String domain) {
  private static final int LABEL_MAX = 63;
  private static final int FQDN_MAX = 64;
  private static final Pattern DNS1123_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

  /**
   * The hostname and domain of {@code pod}.
   *
   * @throws IllegalArgumentException with upstream's message, for a hostname or subdomain that is
   *     not a DNS label (which the API server refuses, but a static pod's file may hold)
   */
  public static PodHostname of(Pod pod, String clusterDomain) {
    String hostname = pod.getMetadata().getName();
    String given = pod.getSpec().getHostname();
    if (given != null && !given.isEmpty()) {
      checkLabel("Hostname", given);
      hostname = given;
    }
    if (hostname.length() > LABEL_MAX) {
      hostname = hostname.substring(0, LABEL_MAX).replaceAll("[-.]+$", "");
    }
    String sub = pod.getSpec().getSubdomain();
    String domain = "";
    if (sub != null && !sub.isEmpty()) {
      checkLabel("Subdomain", sub);
      domain = sub + "." + pod.getMetadata().getNamespace() + ".svc." + clusterDomain;
    }
    return new PodHostname(hostname, domain);
  }

  /**
   * The UTS hostname of the pod's containers.
   *
   * @throws IllegalArgumentException when {@code setHostnameAsFQDN} asks for an FQDN over 64
   *     characters, with upstream's message
   */
  public String kernelHostname(Pod pod) {
    if (domain.isEmpty() || !Boolean.TRUE.equals(pod.getSpec().getSetHostnameAsFQDN())) {
      return hostname;
    }
    String fqdn = hostname + "." + domain;
    if (fqdn.length() > FQDN_MAX) {
      throw new IllegalArgumentException(
          "failed to construct FQDN from pod hostname and cluster domain, FQDN "
              + fqdn
              + " is too long ("
              + FQDN_MAX
              + " characters is the max, "
              + fqdn.length()
              + " characters requested)");
    }
    return fqdn;
  }

  private static void checkLabel(String field, String value) {
    List<String> problems = new ArrayList<>();
    if (value.length() > LABEL_MAX) {
      problems.add("must be no more than 63 characters");
    }
    if (!DNS1123_LABEL.matcher(value).matches()) {
      problems.add(
          "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-',"
              + " and must start and end with an alphanumeric character (e.g. 'my-name',  or"
              + " '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(
          "pod "
              + field
              + " \""
              + value
              + "\" is not a valid DNS label: "
              + String.join(";", problems));
    }
  }
}
