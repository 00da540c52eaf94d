package io.jkubelet.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.jkubelet.agent.setup.KubeletOptions;
import io.jkubelet.config.FeatureGates;
import io.jkubelet.config.Setting;
import io.jkubelet.config.Settings;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * jkubelet as a drop-in for upstream's kubelet v1.20: every flag of the reference kubelet's {@code
 * --help} (captured in {@code upstream/kubelet-v1.20.2-help.txt}, see its README) and every field
 * of v1beta1 ({@code upstream/kubelet-config-v1beta1.yaml}) is accepted with a value of its type,
 * through the command line {@code Main} runs, up to the options the agent is built from; each one
 * accepted without effect is logged once, saying why.
 */
class UpstreamFlagsTest {
  private static final Pattern FLAG =
      Pattern.compile("^\\s+(?:-\\w, )?--([a-z0-9-]+)(?: (\\w+))?\\s{2,}(.*)$");
  private static final Pattern DEFAULT = Pattern.compile("\\(default ([^)]*)\\)");

  /**
   * Values for the flags whose upstream default is none, or is no value jkubelet runs with here:
   * each of the flag's type, and one upstream accepts.
   */
  private static final Map<String, String> VALUES =
      Map.ofEntries(
          Map.entry("feature-gates", "RotateKubeletServerCertificate=true,AppArmor=true"),
          Map.entry("hostname-override", "node-1"),
          Map.entry("node-ip", "10.0.0.1"),
          Map.entry("node-labels", "a=b"),
          Map.entry("register-with-taints", "k=v:NoSchedule"),
          Map.entry("eviction-soft", "memory.available<1Gi"),
          Map.entry("eviction-soft-grace-period", "memory.available=1m30s"),
          Map.entry("eviction-minimum-reclaim", "memory.available=0Mi"),
          Map.entry("kube-reserved", "cpu=100m,memory=100Mi"),
          Map.entry("system-reserved", "cpu=100m,memory=100Mi"),
          Map.entry("qos-reserved", "memory=50%"),
          Map.entry("cluster-dns", "10.96.0.10"),
          Map.entry("tls-cipher-suites", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"),
          Map.entry("tls-min-version", "VersionTLS12"),
          Map.entry("allowed-unsafe-sysctls", "net.core.somaxconn"),
          Map.entry("pod-cidr", "10.244.0.0/24"),
          Map.entry("manifest-url", "http://127.0.0.1:8080/pods"),
          Map.entry("manifest-url-header", "Authorization:Bearer x"),
          Map.entry("vmodule", "pod_workers=4"),
          Map.entry("v", "2"),
          Map.entry("cloud-provider", "external"),
          Map.entry("provider-id", "external://node-1"),
          Map.entry("cgroup-root", "/"),
          Map.entry("network-plugin", "cni"),
          Map.entry("reserved-cpus", "0"));

  @TempDir Path tmp;
  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private Logger logger;

  @BeforeEach
  void captureLogs() {
    logger = (Logger) LoggerFactory.getLogger(RunCommand.class);
    logs.start();
    logger.addAppender(logs);
  }

  @AfterEach
  void releaseLogs() {
    logger.detachAppender(logs);
  }

  /** A flag of upstream's help: its name, its type as pflag names it, and its default or null. */
  record UpstreamFlag(String name, String type, String defaultValue) {}

  static List<UpstreamFlag> upstreamFlags() throws IOException {
    List<UpstreamFlag> flags = new ArrayList<>();
    for (String line : resource("kubelet-v1.20.2-help.txt").split("\n")) {
      Matcher m = FLAG.matcher(line);
      if (m.matches()) {
        Matcher d = DEFAULT.matcher(m.group(3));
        flags.add(
            new UpstreamFlag(
                m.group(1),
                m.group(2) == null ? "bool" : m.group(2),
                d.find() ? d.group(1).replaceAll("[\"\\[\\]]", "") : null));
      }
    }
    return flags;
  }

  private static String resource(String name) throws IOException {
    try (InputStream in = UpstreamFlagsTest.class.getResourceAsStream("/upstream/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** A value of the flag's type: ours, else upstream's default, else one made for its type. */
  private static String value(UpstreamFlag f) {
    if (VALUES.containsKey(f.name())) {
      return VALUES.get(f.name());
    }
    if (f.defaultValue() != null && !f.defaultValue().isEmpty()) {
      return f.defaultValue();
    }
    return switch (f.type()) {
      case "bool" -> "true";
      case "int", "int32", "uint" -> "1";
      case "float" -> "0.5";
      case "duration" -> "1m30s";
      case "ip" -> "127.0.0.1";
      case "strings" -> "a,b";
      case "mapStringString" -> "a=b";
      default -> "/var/lib/x";
    };
  }

  /** Parses {@code run} with {@code args} as {@code Main} does, and assembles its options. */
  private static KubeletOptions run(List<String> args) {
    List<String> all = new ArrayList<>(List.of("run"));
    all.addAll(args);
    CommandLine.ParseResult parsed = Main.commandLine().parseArgs(all.toArray(String[]::new));
    return ((RunCommand) parsed.subcommand().commandSpec().userObject()).options();
  }

  @Test
  void theReferenceHelpListsUpstreams181Flags() throws IOException {
    List<UpstreamFlag> flags = upstreamFlags();
    assertThat(flags).hasSize(181);
    assertThat(flags)
        .extracting(UpstreamFlag::name)
        .contains("fail-swap-on", "feature-gates", "logtostderr", "housekeeping-interval");
  }

  @Test
  void theFeatureGatesAreTheReferenceKubeletsWithItsDefaultsAndStages() throws IOException {
    Matcher m =
        Pattern.compile("^\\s+(\\w+)=true\\|false \\((\\w+) - default=(\\w+)\\)", Pattern.MULTILINE)
            .matcher(resource("kubelet-v1.20.2-help.txt"));
    int n = 0;
    while (m.find()) {
      n++;
      FeatureGates.Gate g = FeatureGates.KNOWN.get(m.group(1));
      assertThat(g).as(m.group(1)).isNotNull();
      assertThat(g.stage()).as(m.group(1)).isEqualTo(m.group(2));
      assertThat(g.defaultValue()).as(m.group(1)).isEqualTo(Boolean.parseBoolean(m.group(3)));
    }
    assertThat(n).as("the help lists the alpha and beta gates").isEqualTo(89);
  }

  @Test
  void everyUpstreamFlagIsAcceptedAndEachWithoutEffectIsLoggedOnce() throws IOException {
    List<String> args = new ArrayList<>();
    List<String> ignored = new ArrayList<>();
    int bools = 0;
    Path config = tmp.resolve("config.yaml");
    Files.writeString(
        config, "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n");
    for (UpstreamFlag f : upstreamFlags()) {
      String flag = "--" + f.name();
      if (f.name().equals("config") || f.name().equals("kubeconfig")) {
        args.add(flag + "=" + (f.name().equals("config") ? config : tmp.resolve("kubelet.conf")));
      } else if (f.type().equals("bool")) {
        // Both of upstream's forms: alone, and with its value.
        args.add(bools++ % 2 == 0 ? flag : flag + "=" + value(f));
      } else {
        args.add(flag + "=" + value(f));
      }
      if (Settings.ofFlag(flag).filter(Setting::isIgnored).isPresent()) {
        ignored.add(flag);
      }
    }

    KubeletOptions options = run(args);

    assertThat(options.nodeName()).isEqualTo("node-1");
    assertThat(ignored).as("some are accepted without effect").hasSizeGreaterThan(50);
    for (String flag : ignored) {
      assertThat(logs.list)
          .as(flag + " is logged once, with why")
          .filteredOn(
              e -> e.getFormattedMessage().startsWith(flag + " is accepted without effect: "))
          .hasSize(1);
    }
  }

  @Test
  void everyV1beta1FieldIsAcceptedAndEachWithoutEffectIsLoggedOnce() throws IOException {
    String yaml = resource("kubelet-config-v1beta1.yaml");
    Path config = tmp.resolve("config.yaml");
    Files.writeString(config, yaml);
    JsonNode root = new ObjectMapper(new YAMLFactory()).readTree(yaml);
    Map<String, Setting> ignored = new LinkedHashMap<>();
    List<String> fields = new ArrayList<>();
    root.fieldNames().forEachRemaining(fields::add);
    fields.removeAll(List.of("apiVersion", "kind"));
    assertThat(fields).as("v1beta1's fields, v1.20").hasSize(94).doesNotHaveDuplicates();
    for (Setting s : Settings.all()) {
      String top = s.name().contains(".") ? s.name().substring(0, s.name().indexOf('.')) : s.name();
      if (s.inFile() && s.isIgnored() && fields.contains(top)) {
        ignored.put(s.name(), s);
      }
    }

    KubeletOptions options =
        run(List.of("--config=" + config, "--hostname-override=node-1", "--kubeconfig=/k"));

    assertThat(options.config().node().providerID()).isEqualTo("external://node-1");
    assertThat(logs.list)
        .extracting(ILoggingEvent::getFormattedMessage)
        .as("every field is known: none unsupported, none unimplemented without a reason")
        .noneMatch(
            m ->
                m.contains("not supported by jkubelet")
                    || m.contains("does not implement, and ignores"));
    for (String field : ignored.keySet()) {
      assertThat(logs.list)
          .as(field + " is logged once, with why")
          .filteredOn(e -> e.getFormattedMessage().contains(": " + field + " is accepted without"))
          .hasSize(1);
    }
  }

  /**
   * docs/configuration.md's table of upstream's flags: each of the reference help's, and what
   * jkubelet makes of it, from the declarations ({@code Setting}) and {@code run}'s own options.
   * {@code -Djkubelet.docs.update=true} writes it anew.
   */
  @Test
  void theDocsTableOfUpstreamsFlagsIsTheDeclarations() throws IOException {
    CommandLine.Model.CommandSpec spec = new CommandLine(new RunCommand()).getCommandSpec();
    StringBuilder table =
        new StringBuilder("| upstream's flag | field | in jkubelet |\n|---|---|---|\n");
    for (UpstreamFlag f : upstreamFlags()) {
      String flag = "--" + f.name();
      Setting s = Settings.ofFlag(flag).orElse(null);
      String field = s != null && s.inFile() ? "`" + s.name() + "`" : "";
      String status;
      if (s != null && s.isIgnored()) {
        status = "accepted without effect: " + s.reason();
      } else if (s != null || spec.findOption(flag) != null) {
        status = "implemented";
      } else {
        status = "**refused**";
      }
      table.append("| `").append(flag).append("` | ").append(field).append(" | ");
      table.append(status.replace("|", "\\|")).append(" |\n");
    }
    Path doc = Path.of("..", "docs", "configuration.md");
    String text = Files.readString(doc);
    String begin = "<!-- upstream-flags: UpstreamFlagsTest writes this table -->\n";
    int start = text.indexOf(begin) + begin.length();
    int end = text.indexOf("<!-- end of upstream-flags -->", start);
    assertThat(start).as(doc + " has the table's markers").isGreaterThanOrEqualTo(begin.length());
    if (Boolean.getBoolean("jkubelet.docs.update")) {
      Files.writeString(doc, text.substring(0, start) + table + text.substring(end));
      return;
    }
    assertThat(text.substring(start, end))
        .as(doc + " lists upstream's flags; -Djkubelet.docs.update=true writes it anew")
        .isEqualTo(table.toString());
    assertThat(table.toString()).doesNotContain("**refused**");
  }
}
