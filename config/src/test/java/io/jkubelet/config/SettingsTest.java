package io.jkubelet.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SettingsTest {

  @Test
  void everySettingIsDeclaredWithADocAndEveryFlagsTextNamesItsField() {
    assertThat(Settings.all()).hasSizeGreaterThan(70);
    for (Setting s : Settings.all()) {
      assertThat(s.doc()).as(s.name()).isNotBlank();
      String named = s.inFile() ? "(" + s.name() : s.isIgnored() ? "without effect" : "flag only";
      assertThat(s.description()).as(s.name()).contains(named);
      if (!s.isIgnored()) {
        assertThat(s.defaultValue(false)).as(s.name()).isNotNull();
        s.check(s.defaultValue(false));
      }
    }
    assertThat(Settings.named("maxPods").orElseThrow().description())
        .isEqualTo("The most pods this node runs (maxPods, default 110).");
    assertThat(Settings.named("readOnlyPort").orElseThrow().description())
        .endsWith("(readOnlyPort, default 10255; 0 in a config file).");
    assertThat(Settings.ofFlag("--minimum-container-ttl-duration").orElseThrow().description())
        .endsWith("(flag only, default 0s).");
  }

  @Test
  void whatADeclarationLeavesOutFollowsFromItsName() {
    assertThat(Settings.named("certDir").orElseThrow().label()).isEqualTo("DIR");
    assertThat(Settings.named("cniBinDir").orElseThrow().label()).isEqualTo("DIR,...");
    assertThat(Settings.named("healthzBindAddress").orElseThrow().label()).isEqualTo("IP");
    assertThat(Settings.named("syncFrequency").orElseThrow().label()).isEqualTo("DURATION");
    assertThat(Settings.named("eventExport.file").orElseThrow().label())
        .as("a declared label wins")
        .isEqualTo("PATH");
    assertThat(Settings.ofFlag("--event-export-ca-file").orElseThrow().name())
        .isEqualTo("eventExport.caFile");
    assertThat(Settings.named("eventExport.credentialsFile").orElseThrow().flags())
        .containsExactly("--event-export-credentials");
    assertThat(Settings.named("rotateCertificates").orElseThrow().description())
        .endsWith("(rotateCertificates, default false).");
    assertThat(Settings.named("shutdownGracePeriod").orElseThrow().defaultValue(false))
        .isEqualTo(Duration.ZERO);
    assertThat(Settings.ofFlag("--network-plugin-mtu").orElseThrow().defaultText(false))
        .isEqualTo("0");
  }

  @Test
  void buildingRejectsANullByNameAndCopiesLists() {
    List<String> dns = new java.util.ArrayList<>(List.of("10.96.0.10"));
    KubeletConfiguration c = KubeletConfiguration.builder().set("clusterDNS", dns).build();
    dns.add("10.96.0.11");
    assertThat(c.pods().dns().clusterDNS()).containsExactly("10.96.0.10");
    assertThatThrownBy(() -> c.pods().dns().clusterDNS().add("x"))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> KubeletConfiguration.builder().set("eventExport.url", null).build())
        .isInstanceOf(NullPointerException.class)
        .hasMessage("eventExport.url");
  }

  @Test
  void recordsAreBuiltAndReadFromTheDeclarations() {
    KubeletConfiguration c =
        KubeletConfiguration.builder()
            .set("authentication.webhook.enabled", true)
            .set("podPidsLimit", 7L)
            .build();
    Setting webhook = Settings.named("authentication.webhook.enabled").orElseThrow();
    assertThat(Settings.read(c, webhook)).isEqualTo(true);
    assertThat(Settings.read(c.server(), webhook)).isEqualTo(true);
    assertThat(Settings.read(c.server().authentication(), webhook)).isEqualTo(true);
    assertThat(c.resources().cgroups().podPidsLimit()).isEqualTo(7);
    assertThat(Settings.defaults(GcSettings.class, false)).isEqualTo(GcSettings.DEFAULTS);
    assertThat(Settings.defaults(Authorization.class, true).mode()).isEqualTo("Webhook");
    assertThatThrownBy(() -> KubeletConfiguration.builder().set("maxPods", "2"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxPods takes a Integer, got 2");
    assertThatThrownBy(() -> KubeletConfiguration.builder().set("maxpods", 2))
        .hasMessage("no setting maxpods");
  }

  @Test
  void aFlagValueIsParsedWithUpstreamsSyntaxAndAnErrorNamesTheFlag() {
    Type hard = Settings.named("evictionHard").orElseThrow().type();
    assertThat(
            hard.fromFlag("--eviction-hard", List.of("memory.available<1Gi, nodefs.available<5%")))
        .isEqualTo(Map.of("memory.available", "1Gi", "nodefs.available", "5%"));
    assertThat(Type.STRINGS.fromFlag("--cluster-dns", List.of("10.0.0.1,10.0.0.2", "", "10.0.0.3")))
        .isEqualTo(List.of("10.0.0.1", "10.0.0.2", "10.0.0.3"));
    assertThat(Type.HEADERS.fromFlag("--manifest-url-header", List.of("A:1,B:2", "A:3")))
        .isEqualTo(Map.of("A", List.of("1", "3"), "B", List.of("2")));
    assertThat(Type.DURATION.fromFlag("--sync-frequency", List.of("1m30s")))
        .isEqualTo(Duration.ofSeconds(90));
    assertThatThrownBy(() -> Type.INT.fromFlag("--max-pods", List.of("lots")))
        .hasMessage("--max-pods: expected an integer, got \"lots\"");
    assertThatThrownBy(() -> hard.fromFlag("--eviction-hard", List.of("memory.available=1Gi")))
        .hasMessage(
            "--eviction-hard: malformed pair, expect string<string, got \"memory.available=1Gi\"");
  }

  @Test
  void anIgnoredSettingIsReadCheckedAndListedButHasNoEffect(@TempDir Path dir) throws IOException {
    Setting s = Settings.ofFlag("--contention-profiling").orElseThrow();
    assertThat(s.isIgnored()).isTrue();
    assertThat(s.reason()).isNotBlank();
    assertThat(s.ignoredNotice("--contention-profiling"))
        .startsWith("--contention-profiling is accepted without effect: ");
    Path file =
        Files.writeString(
            dir.resolve("k.yaml"),
            "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                + "enableContentionProfiling: true\n");
    ConfigLoader.Loaded loaded = ConfigLoader.load(file);
    assertThat(loaded.unimplemented()).containsExactly("enableContentionProfiling");
    assertThat(loaded.config()).isEqualTo(KubeletConfiguration.fileBuilder().build());
    Files.writeString(
        file,
        "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
            + "enableContentionProfiling: \"yes\"\n");
    assertThatThrownBy(() -> ConfigLoader.load(file))
        .hasMessage("enableContentionProfiling: expected true or false, got \"yes\"");
  }

  @Test
  void aRecordsOwnRulesRunAfterItsSettingsChecks() {
    CgroupSettings off =
        new CgroupSettings(
            false, "", "cgroupfs", true, Duration.ofMillis(100), -1, List.of("pods"));
    assertThatThrownBy(() -> Settings.validate(off))
        .hasMessageStartingWith("enforceNodeAllocatable: is not supported unless cgroupsPerQOS");
    CgroupSettings both =
        new CgroupSettings(false, "pods", "cgroupfs", true, Duration.ofMillis(100), -1, List.of());
    assertThatThrownBy(() -> Settings.validate(both))
        .hasMessage("cgroupRoot: must be an absolute cgroup path such as /, got \"pods\"");
  }
}
