package io.jkubelet.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ConfigLoaderTest {

  private static final String HEADER =
      "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n";

  @TempDir Path dir;

  private Path write(String content) throws IOException {
    return Files.writeString(dir.resolve("kubelet.yaml"), content);
  }

  @Test
  void loadsEveryFieldOfAFullFile() throws IOException {
    ConfigLoader.Loaded loaded = ConfigLoader.load(write(Samples.FULL_YAML));

    assertThat(loaded.config()).isEqualTo(Samples.full());
    assertThat(loaded.config().pods().staticPods().staticPodURLHeader().keySet())
        .as("headers keep file order")
        .containsExactly("Authorization", "X-Multi");
  }

  @Test
  void loadsJson() throws IOException {
    Path file =
        Files.writeString(
            dir.resolve("kubelet.json"),
            """
            {"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration",
             "maxPods": 42, "syncFrequency": "30s", "registerNode": false,
             "staticPodURLHeader": {"Authorization": ["Bearer abc"]}}
            """);

    assertThat(ConfigLoader.load(file).config())
        .isEqualTo(
            KubeletConfiguration.fileBuilder()
                .set("maxPods", 42)
                .set("syncFrequency", Duration.ofSeconds(30))
                .set("registerNode", false)
                .set("staticPodURLHeader", Map.of("Authorization", List.of("Bearer abc")))
                .build());
  }

  @Test
  void readsTheCertificateFields() throws IOException {
    ConfigLoader.Loaded loaded =
        ConfigLoader.load(write(HEADER + "rotateCertificates: true\nserverTLSBootstrap: false\n"));

    assertThat(loaded.config().node().certificates())
        .isEqualTo(new CertificateSettings(true, false, "", ""));
    assertThat(loaded.warnings()).isEmpty();
    assertThatThrownBy(() -> ConfigLoader.load(write(HEADER + "rotateCertificates: \"yes\"\n")))
        .isInstanceOfSatisfying(
            ConfigException.class, e -> assertThat(e.field()).isEqualTo("rotateCertificates"));
  }

  @Test
  void absentFieldsTakeDefaults() throws IOException {
    ConfigLoader.Loaded loaded = ConfigLoader.load(write(HEADER));

    assertThat(loaded.config()).isEqualTo(KubeletConfiguration.fileBuilder().build());
    assertThat(loaded.warnings()).isEmpty();
  }

  @Test
  void nullFieldsTakeDefaults() throws IOException {
    ConfigLoader.Loaded loaded =
        ConfigLoader.load(write(HEADER + "maxPods: null\nstaticPodPath:\nsyncFrequency: ~\n"));

    assertThat(loaded.config()).isEqualTo(KubeletConfiguration.fileBuilder().build());
  }

  @Test
  void onlyTheFieldsPresentChange() throws IOException {
    KubeletConfiguration config =
        ConfigLoader.load(write(HEADER + "maxPods: 7\nreadOnlyPort: 0\n")).config();

    assertThat(config)
        .isEqualTo(
            KubeletConfiguration.fileBuilder().set("maxPods", 7).set("readOnlyPort", 0).build());
  }

  @Test
  void allowedUnsafeSysctlsIsAListOfStrings() throws IOException {
    KubeletConfiguration config =
        ConfigLoader.load(
                write(HEADER + "allowedUnsafeSysctls: [kernel.msg*, net.core.somaxconn]\n"))
            .config();
    assertThat(config.pods().allowedUnsafeSysctls())
        .containsExactly("kernel.msg*", "net.core.somaxconn");
    assertThatThrownBy(() -> ConfigLoader.load(write(HEADER + "allowedUnsafeSysctls: net.*\n")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("allowedUnsafeSysctls")
        .hasMessageContaining("expected a list of strings");
  }

  @Test
  void upstreamFieldsNotImplementedAreListedAndUnknownOnesAreWarnings() throws IOException {
    String upstreamStyle =
        HEADER
            + """
            volumeStatsAggPeriod: 1m
            maxPods: 30
            clusterDNS: [10.96.0.10]
            serializeImagePulls: false
            maxpods: 31
            """;

    ConfigLoader.Loaded loaded = ConfigLoader.load(write(upstreamStyle));

    assertThat(loaded.config().pods().maxPods()).isEqualTo(30);
    assertThat(loaded.config().pods().dns().clusterDNS()).containsExactly("10.96.0.10");
    assertThat(loaded.config().runtime().serializeImagePulls()).isFalse();
    assertThat(loaded.unimplemented()).containsExactly("volumeStatsAggPeriod");
    assertThat(loaded.warnings())
        .containsExactly(
            "field maxpods is not supported by jkubelet and is ignored (did you mean maxPods?)");
  }

  @Test
  void fullSampleHasNoUnimplementedField() throws IOException {
    ConfigLoader.Loaded loaded = ConfigLoader.load(write(Samples.FULL_YAML));
    assertThat(loaded.warnings()).isEmpty();
    assertThat(loaded.unimplemented()).isEmpty();
  }

  /** What {@code kubeadm init} and {@code join} v1.20 write to /var/lib/kubelet/config.yaml. */
  private static final String KUBEADM_V1_20 =
      """
      apiVersion: kubelet.config.k8s.io/v1beta1
      authentication:
        anonymous:
          enabled: false
        webhook:
          cacheTTL: 0s
          enabled: true
        x509:
          clientCAFile: /etc/kubernetes/pki/ca.crt
      authorization:
        mode: Webhook
        webhook:
          cacheAuthorizedTTL: 0s
          cacheUnauthorizedTTL: 0s
      cgroupDriver: cgroupfs
      clusterDNS:
      - 10.96.0.10
      clusterDomain: cluster.local
      cpuManagerReconcilePeriod: 0s
      evictionPressureTransitionPeriod: 0s
      fileCheckFrequency: 0s
      healthzBindAddress: 127.0.0.1
      healthzPort: 10248
      httpCheckFrequency: 0s
      imageMinimumGCAge: 0s
      kind: KubeletConfiguration
      logging: {}
      nodeStatusReportFrequency: 0s
      nodeStatusUpdateFrequency: 0s
      rotateCertificates: true
      runtimeRequestTimeout: 0s
      shutdownGracePeriod: 0s
      shutdownGracePeriodCriticalPods: 0s
      staticPodPath: /etc/kubernetes/manifests
      streamingConnectionIdleTimeout: 0s
      syncFrequency: 0s
      volumeStatsAggPeriod: 0s
      """;

  @Test
  void kubeadmsConfigLoadsWithEveryZeroDurationAtItsDefaultAndValidates() throws IOException {
    ConfigLoader.Loaded loaded = ConfigLoader.load(write(KUBEADM_V1_20));

    KubeletConfiguration c = loaded.config();
    KubeletConfiguration defaults = KubeletConfiguration.fileBuilder().build();
    assertThat(c.pods().lifecycle().syncFrequency()).isEqualTo(Duration.ofMinutes(1));
    assertThat(c.pods().staticPods().fileCheckFrequency()).isEqualTo(Duration.ofSeconds(20));
    assertThat(c.pods().staticPods().httpCheckFrequency()).isEqualTo(Duration.ofSeconds(20));
    assertThat(c.node().status().nodeStatusUpdateFrequency()).isEqualTo(Duration.ofSeconds(10));
    assertThat(c.node().status().nodeStatusReportFrequency()).isEqualTo(Duration.ofMinutes(5));
    assertThat(c.server().authentication().webhookCacheTTL()).isEqualTo(Duration.ofMinutes(2));
    assertThat(c.server().authentication().webhookEnabled()).isTrue();
    assertThat(c.server().authentication().clientCAFile()).isEqualTo("/etc/kubernetes/pki/ca.crt");
    assertThat(c.server().authorization().mode()).isEqualTo("Webhook");
    assertThat(c.server().authorization().cacheAuthorizedTTL())
        .isEqualTo(defaults.server().authorization().cacheAuthorizedTTL());
    assertThat(c.server().authorization().cacheUnauthorizedTTL())
        .isEqualTo(defaults.server().authorization().cacheUnauthorizedTTL());
    assertThat(c.pods().staticPods().staticPodPath()).isEqualTo("/etc/kubernetes/manifests");
    assertThat(c.server().healthz().healthzBindAddress()).isEqualTo("127.0.0.1");
    assertThat(c.resources().cgroups().cgroupDriver()).as("kubeadm's, given").isEqualTo("cgroupfs");
    assertThat(c.resources().cgroups())
        .isEqualTo(
            Settings.build(
                CgroupSettings.class,
                s ->
                    s.name().equals("cgroupDriver")
                        ? "cgroupfs"
                        : Settings.read(CgroupSettings.DEFAULTS, s)));
    assertThat(c.resources().eviction()).isEqualTo(EvictionSettings.DEFAULTS);
    assertThat(c.resources().gc())
        .as("imageMinimumGCAge: 0s is the default")
        .isEqualTo(GcSettings.DEFAULTS);
    assertThat(loaded.warnings()).isEmpty();
    assertThat(c.runtime().runtimeRequestTimeout()).isEqualTo(Duration.ofMinutes(2));
    assertThat(loaded.unimplemented())
        .as("those accepted without effect, each logged with its reason")
        .containsExactly(
            "cpuManagerReconcilePeriod", "streamingConnectionIdleTimeout", "volumeStatsAggPeriod");
    ConfigValidator.validate(c);
  }

  @Test
  void zeroValuesUpstreamDefaultsKeepTheDefaultOthersAreKept() throws IOException {
    ConfigLoader.Loaded loaded =
        ConfigLoader.load(
            write(
                HEADER
                    + """
                    port: 0
                    maxPods: 0
                    address: ""
                    hairpinMode: ""
                    readOnlyPort: 0
                    healthzPort: 0
                    eventRecordQPS: 0
                    staticPodPath: ""
                    """));

    KubeletConfiguration c = loaded.config();
    KubeletConfiguration defaults = KubeletConfiguration.fileBuilder().build();
    assertThat(c.server().port()).isEqualTo(10250);
    assertThat(c.pods().maxPods()).isEqualTo(110);
    assertThat(c.server().address()).isEqualTo(defaults.server().address());
    assertThat(c.pods().network().hairpinMode()).isEqualTo(defaults.pods().network().hairpinMode());
    // Pointers upstream, or without a default: 0 and "" are values.
    assertThat(c.server().readOnlyPort()).isZero();
    assertThat(c.server().healthz().healthzPort()).isZero();
    assertThat(c.events().eventRecordQPS()).isZero();
    assertThat(c.pods().staticPods().staticPodPath()).isEmpty();
  }

  @Test
  void cgroupFieldsLoadIntoTheirOwnSettingsWithUpstreamsDefaults() throws IOException {
    assertThat(ConfigLoader.load(write(HEADER)).config().resources().cgroups())
        .isEqualTo(CgroupSettings.DEFAULTS)
        .isEqualTo(
            new CgroupSettings(true, "", "", true, Duration.ofMillis(100), -1, List.of("pods")));

    CgroupSettings zero =
        ConfigLoader.load(
                write(HEADER + "cgroupDriver: \"\"\ncpuCFSQuotaPeriod: 0s\npodPidsLimit: 0\n"))
            .config()
            .resources()
            .cgroups();
    assertThat(zero.cgroupDriver()).as("\"\" is the default: Docker's").isEmpty();
    assertThat(zero.cpuCFSQuotaPeriod()).as("0s is the default").isEqualTo(Duration.ofMillis(100));
    assertThat(zero.podPidsLimit()).as("0 is a value").isZero();

    CgroupSettings set =
        ConfigLoader.load(
                write(
                    HEADER
                        + """
                        cgroupsPerQOS: false
                        cgroupRoot: /custom
                        cgroupDriver: systemd
                        cpuCFSQuota: false
                        cpuCFSQuotaPeriod: 10ms
                        podPidsLimit: 1024
                        enforceNodeAllocatable: []
                        """))
            .config()
            .resources()
            .cgroups();
    assertThat(set)
        .isEqualTo(
            new CgroupSettings(
                false, "/custom", "systemd", false, Duration.ofMillis(10), 1024, List.of()));
  }

  @Test
  void imageGcFieldsLoadIntoTheGcSettingsWithUpstreamsDefaults() throws IOException {
    assertThat(ConfigLoader.load(write(HEADER)).config().resources().gc())
        .isEqualTo(GcSettings.DEFAULTS)
        .isEqualTo(
            new GcSettings(
                85, 80, Duration.ofMinutes(2), Duration.ZERO, 1, -1, Duration.ofMinutes(5)));

    GcSettings set =
        ConfigLoader.load(
                write(
                    HEADER
                        + """
                        imageGCHighThresholdPercent: 0
                        imageGCLowThresholdPercent: 0
                        imageMinimumGCAge: 30s
                        """))
            .config()
            .resources()
            .gc();
    assertThat(set.imageGCHighThresholdPercent()).as("0 is a value (a pointer upstream)").isZero();
    assertThat(set.imageGCLowThresholdPercent()).isZero();
    assertThat(set.imageMinimumGCAge()).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void aReportFrequencyNotSetFollowsAnUpdateFrequencySetAsUpstreams() throws IOException {
    KubeletConfiguration follows =
        ConfigLoader.load(
                write(HEADER + "nodeStatusUpdateFrequency: 20s\nnodeStatusReportFrequency: 0s\n"))
            .config();
    assertThat(follows.node().status().nodeStatusReportFrequency())
        .isEqualTo(Duration.ofSeconds(20));

    KubeletConfiguration both =
        ConfigLoader.load(
                write(HEADER + "nodeStatusUpdateFrequency: 20s\nnodeStatusReportFrequency: 1m\n"))
            .config();
    assertThat(both.node().status().nodeStatusReportFrequency()).isEqualTo(Duration.ofMinutes(1));
  }

  @Test
  void aZeroDurationOfTheWrongTypeIsStillAnError() throws IOException {
    assertThatThrownBy(() -> ConfigLoader.load(write(HEADER + "syncFrequency: 0\n")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("syncFrequency");
  }

  static Stream<Arguments> badValues() {
    return Stream.of(
        argumentSet(
            "word for an integer",
            "maxPods: lots",
            "maxPods",
            "maxPods: expected an integer, got \"lots\""),
        argumentSet(
            "quoted number for an integer",
            "port: \"10250\"",
            "port",
            "port: expected an integer, got \"10250\""),
        argumentSet(
            "fraction for an integer",
            "eventBurst: 1.5",
            "eventBurst",
            "eventBurst: expected an integer, got 1.5"),
        argumentSet(
            "integer beyond 32 bits",
            "readOnlyPort: 99999999999",
            "readOnlyPort",
            "readOnlyPort: expected an integer between -2147483648 and 2147483647, got"
                + " 99999999999"),
        argumentSet(
            "boolean for an integer",
            "podInfraOomScoreAdj: true",
            "podInfraOomScoreAdj",
            "podInfraOomScoreAdj: expected an integer, got true"),
        argumentSet(
            "malformed duration",
            "syncFrequency: abc",
            "syncFrequency",
            "syncFrequency: invalid duration \"abc\": expected a number with a unit (ns, us, ms,"
                + " s, m, h), e.g. \"20s\" or \"1m30s\""),
        argumentSet(
            "negative duration",
            "httpCheckFrequency: -5s",
            "httpCheckFrequency",
            "httpCheckFrequency: invalid duration \"-5s\": must not be negative"),
        argumentSet(
            "number for a duration",
            "fileCheckFrequency: 20",
            "fileCheckFrequency",
            "fileCheckFrequency: expected a duration such as \"20s\" or \"1m30s\", got 20"),
        argumentSet(
            "string for a boolean",
            "registerNode: \"yes\"",
            "registerNode",
            "registerNode: expected true or false, got \"yes\""),
        argumentSet(
            "list for a string",
            "staticPodPath: [a, b]",
            "staticPodPath",
            "staticPodPath: expected a string, got a list"),
        argumentSet(
            "number for a string", "address: 10", "address", "address: expected a string, got 10"),
        argumentSet(
            "string for the header mapping",
            "staticPodURLHeader: Authorization",
            "staticPodURLHeader",
            "staticPodURLHeader: expected a mapping of header names to lists of values, got"
                + " \"Authorization\""),
        argumentSet(
            "single string for a header's values",
            "staticPodURLHeader: {Authorization: Bearer abc}",
            "staticPodURLHeader.Authorization",
            "staticPodURLHeader.Authorization: expected a list of strings, got \"Bearer abc\""),
        argumentSet(
            "number among a header's values",
            "staticPodURLHeader: {X-Id: [a, 5]}",
            "staticPodURLHeader.X-Id[1]",
            "staticPodURLHeader.X-Id[1]: expected a string, got 5"),
        argumentSet(
            "string for podPidsLimit",
            "podPidsLimit: \"100\"",
            "podPidsLimit",
            "podPidsLimit: expected an integer, got \"100\""),
        argumentSet(
            "podPidsLimit beyond 64 bits",
            "podPidsLimit: 99999999999999999999",
            "podPidsLimit",
            "podPidsLimit: expected a 64-bit integer, got 99999999999999999999"),
        argumentSet(
            "string for enforceNodeAllocatable",
            "enforceNodeAllocatable: pods",
            "enforceNodeAllocatable",
            "enforceNodeAllocatable: expected a list of strings, got \"pods\""),
        argumentSet(
            "string for cgroupsPerQOS",
            "cgroupsPerQOS: \"false\"",
            "cgroupsPerQOS",
            "cgroupsPerQOS: expected true or false, got \"false\""));
  }

  @ParameterizedTest
  @MethodSource("badValues")
  void badValuesNameTheirField(String line, String field, String message) throws IOException {
    Path file = write(HEADER + line + "\n");

    assertThatThrownBy(() -> ConfigLoader.load(file))
        .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.field()).isEqualTo(field))
        .hasMessage(message);
  }

  static Stream<Arguments> badTypeMeta() {
    return Stream.of(
        argumentSet(
            "wrong kind",
            "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: Pod\n",
            "kind",
            "kind: must be \"KubeletConfiguration\", got \"Pod\""),
        argumentSet(
            "missing kind",
            "apiVersion: kubelet.config.k8s.io/v1beta1\nmaxPods: 3\n",
            "kind",
            "kind: must be \"KubeletConfiguration\", but it is missing"),
        argumentSet(
            "wrong apiVersion",
            "apiVersion: kubelet.config.k8s.io/v1\nkind: KubeletConfiguration\n",
            "apiVersion",
            "apiVersion: must be \"kubelet.config.k8s.io/v1beta1\", got"
                + " \"kubelet.config.k8s.io/v1\""),
        argumentSet(
            "missing apiVersion",
            "kind: KubeletConfiguration\n",
            "apiVersion",
            "apiVersion: must be \"kubelet.config.k8s.io/v1beta1\", but it is missing"),
        argumentSet(
            "kind of the wrong case",
            "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: kubeletconfiguration\n",
            "kind",
            "kind: must be \"KubeletConfiguration\", got \"kubeletconfiguration\""));
  }

  @ParameterizedTest
  @MethodSource("badTypeMeta")
  void rejectsWrongKindOrApiVersion(String content, String field, String message)
      throws IOException {
    Path file = write(content);

    assertThatThrownBy(() -> ConfigLoader.load(file))
        .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.field()).isEqualTo(field))
        .hasMessage(message);
  }

  @Test
  void missingFileNamesThePath() {
    Path missing = dir.resolve("nope.yaml");

    assertThatThrownBy(() -> ConfigLoader.load(missing))
        .isInstanceOfSatisfying(
            ConfigException.class, e -> assertThat(e.field()).isEqualTo("config"))
        .hasMessage("config: file " + missing + " does not exist");
  }

  @Test
  void directoryIsRejected() {
    assertThatThrownBy(() -> ConfigLoader.load(dir))
        .isInstanceOfSatisfying(
            ConfigException.class, e -> assertThat(e.field()).isEqualTo("config"))
        .hasMessage("config: " + dir + " is a directory, expected a file");
  }

  @Test
  void malformedYamlNamesFileLineAndColumn() throws IOException {
    Path file = write(HEADER + "maxPods: [1, 2\nport: 3\n");

    assertThatThrownBy(() -> ConfigLoader.load(file))
        .isInstanceOfSatisfying(
            ConfigException.class, e -> assertThat(e.field()).isEqualTo("config"))
        .hasMessageStartingWith("config: " + file + " is not valid YAML at line 4, column ");
  }

  @Test
  void duplicateFieldsAreRejected() throws IOException {
    Path file = write(HEADER + "maxPods: 3\nmaxPods: 4\n");

    assertThatThrownBy(() -> ConfigLoader.load(file))
        .isInstanceOfSatisfying(
            ConfigException.class, e -> assertThat(e.field()).isEqualTo("config"))
        .hasMessageStartingWith("config: " + file + " is not valid YAML at line 4")
        .hasMessageContaining("maxPods");
  }

  @Test
  void emptyFileIsRejected() throws IOException {
    Path file = write("# nothing here\n");

    assertThatThrownBy(() -> ConfigLoader.load(file))
        .isInstanceOf(ConfigException.class)
        .hasMessage("config: " + file + " is empty, expected a KubeletConfiguration");
  }

  @Test
  void topLevelListIsRejected() throws IOException {
    Path file = write("- kind: KubeletConfiguration\n");

    assertThatThrownBy(() -> ConfigLoader.load(file))
        .isInstanceOf(ConfigException.class)
        .hasMessage("config: " + file + " must hold a mapping of fields, got a list");
  }

  @Test
  void secondYamlDocumentIsRejectedRatherThanIgnored() throws IOException {
    Path file = write(HEADER + "---\n" + HEADER + "maxPods: 9\n");

    assertThatThrownBy(() -> ConfigLoader.load(file))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "config: "
                + file
                + " holds more than one YAML document, expected only a"
                + " KubeletConfiguration");
  }

  @Test
  void documentMarkersAroundASingleDocumentAreFine() throws IOException {
    Path file = write("---\n" + HEADER + "maxPods: 9\n---\n");

    assertThat(ConfigLoader.load(file).config().pods().maxPods()).isEqualTo(9);
  }

  @Test
  void serverFieldsReadWithUpstreamNamesAndFileDefaults(@TempDir Path dir) throws IOException {
    Path file =
        Files.writeString(
            dir.resolve("k.yaml"),
            HEADER
                + """
                tlsCertFile: /pki/kubelet.crt
                tlsPrivateKeyFile: /pki/kubelet.key
                authentication:
                  x509:
                    clientCAFile: /pki/ca.crt
                  webhook:
                    cacheTTL: 1m
                authorization:
                  webhook:
                    cacheUnauthorizedTTL: 10s
                healthzPort: 0
                containerLogMaxFiles: 3
                enableSystemLogHandler: true
                """);
    KubeletConfiguration c = ConfigLoader.load(file).config();
    assertThat(c.server().readOnlyPort()).as("v1beta1 default").isZero();
    assertThat(c.server().authentication())
        .isEqualTo(new Authentication("/pki/ca.crt", true, Duration.ofMinutes(1), false));
    assertThat(c.server().authorization())
        .isEqualTo(new Authorization("Webhook", Duration.ofMinutes(5), Duration.ofSeconds(10)));
    assertThat(c.server().tls().tlsCertFile()).isEqualTo("/pki/kubelet.crt");
    assertThat(c.server().healthz().healthzPort()).isZero();
    assertThat(c.pods().containerLogs().containerLogMaxFiles()).isEqualTo(3);
    assertThat(c.pods().containerLogs().containerLogMaxSize()).isEqualTo("10Mi");
    assertThat(c.server().handlers().enableSystemLogHandler()).isTrue();
    assertThat(KubeletConfiguration.builder().build().server().handlers().enableSystemLogHandler())
        .as("off unless asked for")
        .isFalse();
  }

  @Test
  void eventExportIsJkubeletsOwnMappingAndIsValidated() throws IOException {
    Path file =
        write(
            HEADER
                + """
                eventExport:
                  url: https://opensearch.example:9200
                  credentialsFile: /etc/jkubelet/export-credentials
                  index: node-events
                  spoolMax: 256Mi
                  file: /var/log/jkubelet/events.jsonl
                """);
    ConfigLoader.Loaded loaded = ConfigLoader.load(file);
    EventExport e = loaded.config().events().export();
    assertThat(loaded.warnings()).isEmpty();
    assertThat(e.url()).isEqualTo("https://opensearch.example:9200");
    assertThat(e.credentialsFile()).isEqualTo("/etc/jkubelet/export-credentials");
    assertThat(e.index()).isEqualTo("node-events");
    assertThat(e.fileMaxSize()).as("default").isEqualTo("100Mi");
    assertThat(e.enabled()).isTrue();
    ConfigValidator.validate(loaded.config());
    assertThat(ConfigValidator.bytes("f", e.spoolMax())).isEqualTo(256L << 20);
    assertThat(KubeletConfiguration.defaults().events().export().enabled()).isFalse();

    Path bad = write(HEADER + "eventExport: {url: 'ftp://user:secret@h', spoolMax: 1Gi}\n");
    assertThatThrownBy(() -> ConfigValidator.validate(ConfigLoader.load(bad).config()))
        .isInstanceOfSatisfying(
            ConfigException.class, x -> assertThat(x.field()).isEqualTo("eventExport.url"))
        .hasMessageNotContaining("secret");
    Path small = write(HEADER + "eventExport: {url: 'http://h:9200', spoolMax: 10k}\n");
    assertThatThrownBy(() -> ConfigValidator.validate(ConfigLoader.load(small).config()))
        .hasMessageContaining("eventExport.spoolMax: must be at least 1Mi, got 10k");
    Path unknown = write(HEADER + "eventExport: {uri: 'http://h'}\n");
    assertThatThrownBy(() -> ConfigLoader.load(unknown))
        .hasMessageContaining("eventExport.uri: unknown field of eventExport");
  }
}
