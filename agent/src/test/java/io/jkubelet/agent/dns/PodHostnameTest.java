package io.jkubelet.agent.dns;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.TestPods;
import org.junit.jupiter.api.Test;

class PodHostnameTest {
  private static Pod pod(String name, String hostname, String subdomain, Boolean fqdn) {
    return TestPods.builder("ns", name, "uid")
        .editSpec()
        .withHostname(hostname)
        .withSubdomain(subdomain)
        .withSetHostnameAsFQDN(fqdn)
        .endSpec()
        .build();
  }

  @Test
  void theNameOrTheHostnameAndTheSubdomainsDomain() {
    assertThat(PodHostname.of(pod("web-0", null, null, null), "cluster.local"))
        .isEqualTo(new PodHostname("web-0", ""));
    assertThat(PodHostname.of(pod("web-0", "h", "svc", null), "cluster.local"))
        .isEqualTo(new PodHostname("h", "svc.ns.svc.cluster.local"));
  }

  @Test
  void aLongPodNameIsCutTo63WithoutATrailingDashOrDot() {
    String name = "a".repeat(61) + "-.b" + "c".repeat(10);
    assertThat(PodHostname.of(pod(name, null, null, null), "cluster.local").hostname())
        .isEqualTo("a".repeat(61));
  }

  @Test
  void theKernelGetsTheFqdnOnlyWhenAskedAndOnlyWithASubdomain() {
    Pod asked = pod("p", "h", "svc", true);
    assertThat(PodHostname.of(asked, "cluster.local").kernelHostname(asked))
        .isEqualTo("h.svc.ns.svc.cluster.local");
    Pod noDomain = pod("p", "h", null, true);
    assertThat(PodHostname.of(noDomain, "cluster.local").kernelHostname(noDomain)).isEqualTo("h");
    Pod notAsked = pod("p", "h", "svc", false);
    assertThat(PodHostname.of(notAsked, "cluster.local").kernelHostname(notAsked)).isEqualTo("h");
  }

  @Test
  void anFqdnOver64CharactersIsRefusedWithUpstreamsMessage() {
    Pod p = pod("p", "h".repeat(30), "s".repeat(20), true);
    assertThatThrownBy(() -> PodHostname.of(p, "cluster.local").kernelHostname(p))
        .hasMessage(
            "failed to construct FQDN from pod hostname and cluster domain, FQDN "
                + "h".repeat(30)
                + "."
                + "s".repeat(20)
                + ".ns.svc.cluster.local is too long (64 characters is the max, 72 characters"
                + " requested)");
  }

  @Test
  void anInvalidHostnameOrSubdomainIsRefusedWithUpstreamsMessage() {
    assertThatThrownBy(() -> PodHostname.of(pod("p", "Bad_Name", null, null), "cluster.local"))
        .hasMessage(
            "pod Hostname \"Bad_Name\" is not a valid DNS label: a lowercase RFC 1123 label must"
                + " consist of lower case alphanumeric characters or '-', and must start and end"
                + " with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for"
                + " validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
    assertThatThrownBy(() -> PodHostname.of(pod("p", null, "x".repeat(64), null), "cluster.local"))
        .hasMessage(
            "pod Subdomain \""
                + "x".repeat(64)
                + "\" is not a valid DNS label: must be no more"
                + " than 63 characters");
  }
}
