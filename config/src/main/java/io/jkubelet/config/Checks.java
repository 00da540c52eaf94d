package io.jkubelet.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;

/**
 * The checks that {@link Field#check()} names, beyond its {@code min}, {@code max} and {@code
 * oneOf}. Each keeps upstream's message where upstream has one.
 */
public final class Checks {
  private Checks() {}

  /** A duration greater than zero. */
  public static final class Positive implements Check {
    @Override
    public void check(String field, Object value) {
      Duration d = (Duration) value;
      if (d.isNegative() || d.isZero()) {
        throw new ConfigException(field, "must be greater than 0, got " + Durations.format(d));
      }
    }
  }

  /** A period greater than zero, said as jkubelet's own flags say it. */
  public static final class PositivePeriod implements Check {
    @Override
    public void check(String field, Object value) {
      Duration d = (Duration) value;
      if (!d.isPositive()) {
        throw new ConfigException(field, "must be positive, got " + Durations.format(d));
      }
    }
  }

  /** An integer of zero or more, with upstream's message. */
  public static final class NotNegativeNumber implements Check {
    @Override
    public void check(String field, Object value) {
      if (((Number) value).longValue() < 0) {
        throw new ConfigException(field, value + " must not be a negative number");
      }
    }
  }

  /** Only the docker runtime: jkubelet runs pods on the Docker Engine. */
  public static final class ContainerRuntime implements Check {
    @Override
    public void check(String field, Object value) {
      if (!"docker".equals(value)) {
        throw new ConfigException(
            field,
            "\""
                + value
                + "\" is not supported: jkubelet runs pods on Docker only (docker); for a CRI"
                + " runtime such as containerd (remote), run upstream's kubelet");
      }
    }
  }

  /** No cloud provider ({@code ""}) or an external one: jkubelet has no in-tree providers. */
  public static final class CloudProvider implements Check {
    @Override
    public void check(String field, Object value) {
      if (!"".equals(value) && !"external".equals(value)) {
        throw new ConfigException(
            field,
            "cloud provider \""
                + value
                + "\" is not supported: jkubelet has no in-tree cloud providers; use \"\" (none)"
                + " or \"external\" (a cloud controller manager)");
      }
    }
  }

  /** Upstream's feature gates: each known, a locked one at its default ({@link FeatureGates}). */
  public static final class KnownFeatureGates implements Check {
    @Override
    @SuppressWarnings("unchecked")
    public void check(String field, Object value) {
      FeatureGates.check(field, (java.util.Map<String, Boolean>) value);
    }
  }

  /** An integer from {@code min} to {@code max}, with upstream's message. */
  static Check range(long min, long max) {
    return (field, value) -> {
      long v = ((Number) value).longValue();
      if (v < min || v > max) {
        throw new ConfigException(
            field, v + " must be between " + min + " and " + max + ", inclusive");
      }
    };
  }

  /** An integer of zero or more, with upstream's message. */
  static Check notNegative() {
    return new NotNegativeNumber();
  }

  /** One of {@code values}, with upstream's message {@code non-allowable value: x}. */
  static Check allowable(String... values) {
    return (field, value) -> {
      if (!List.of(values).contains(value)) {
        throw new ConfigException(field, "non-allowable value: " + value);
      }
    };
  }

  /** A duration of zero or more. */
  public static final class NotNegative implements Check {
    @Override
    public void check(String field, Object value) {
      if (((Duration) value).isNegative()) {
        throw new ConfigException(field, "must not be negative");
      }
    }
  }

  /**
   * A graceful shutdown period ({@link ShutdownSettings}): zero, or a second or more, with
   * upstream's words ({@code ShutdownGracePeriod 500ms must be either zero or otherwise >= 1 sec}).
   */
  public static final class ShutdownPeriod implements Check {
    @Override
    public void check(String field, Object value) {
      Duration d = (Duration) value;
      String name = Character.toUpperCase(field.charAt(0)) + field.substring(1);
      if (d.isNegative()) {
        throw new ConfigException(
            field, "invalid configuration: " + name + " " + Durations.format(d) + " must be >= 0");
      }
      if (d.isPositive() && d.compareTo(Duration.ofSeconds(1)) < 0) {
        throw new ConfigException(
            field,
            "invalid configuration: "
                + name
                + " "
                + Durations.format(d)
                + " must be either zero or otherwise >= 1 sec");
      }
    }
  }

  /** Upstream's {@code --minimum-container-ttl-duration}: not negative. */
  public static final class GcAge implements Check {
    @Override
    public void check(String field, Object value) {
      Duration d = (Duration) value;
      if (d.isNegative()) {
        throw new ConfigException(
            field, "invalid minimum garbage collection age: " + Durations.format(d));
      }
    }
  }

  /** An image GC threshold, with upstream's message. */
  public static final class Percent implements Check {
    @Override
    public void check(String field, Object value) {
      int v = (Integer) value;
      if (v < 0 || v > 100) {
        throw new ConfigException(field, v + " must be between 0 and 100, inclusive");
      }
    }
  }

  /** Empty, or an absolute http or https URL with a host. */
  public static final class HttpUrl implements Check {
    @Override
    public void check(String field, Object value) {
      String problem = "must be an http:// or https:// URL, got \"" + value + "\"";
      httpUrl(field, (String) value, problem, e -> problem + " (" + e.getMessage() + ")");
    }
  }

  /** As {@link HttpUrl}, but the URL is never echoed: it may hold a password. */
  public static final class SecretUrl implements Check {
    @Override
    public void check(String field, Object value) {
      httpUrl(
          field,
          (String) value,
          "must be an http:// or https:// URL with a host",
          e -> "must be an http:// or https:// URL");
    }
  }

  /**
   * The check of both: empty, or an http or https URL with a host; {@code malformed} says what is
   * wrong with one that does not parse, {@code notHttp} with one of another scheme or no host.
   */
  private static void httpUrl(
      String field, String s, String notHttp, Function<URISyntaxException, String> malformed) {
    if (s.isEmpty()) {
      return;
    }
    URI uri;
    try {
      uri = new URI(s);
    } catch (URISyntaxException e) {
      throw ConfigException.causedBy(field, malformed.apply(e), e);
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
      throw new ConfigException(field, notHttp);
    }
  }

  /** Each entry a literal IP address, as upstream's {@code net.ParseIP} accepts (no names). */
  public static final class IpAddresses implements Check {
    @Override
    public void check(String field, Object value) {
      for (Object o : (List<?>) value) {
        String ip = (String) o;
        boolean v4 = ip.matches("(\\d{1,3})(\\.\\d{1,3}){3}");
        boolean v6 = ip.contains(":") && ip.matches("[0-9A-Fa-f:.]+");
        if (v4) {
          for (String part : ip.split("\\.")) {
            v4 &= Integer.parseInt(part) <= 255;
          }
        }
        if (!v4 && !v6) {
          throw new ConfigException(field, "not an IP address: \"" + ip + "\"");
        }
      }
    }
  }

  /** Cipher suites by upstream's names ({@link TlsNames}), with upstream's message. */
  public static final class TlsCipherSuites implements Check {
    @Override
    public void check(String field, Object value) {
      for (Object o : (List<?>) value) {
        if (!TlsNames.knownCipher((String) o)) {
          throw new ConfigException(field, "Cipher suite " + o + " not supported or doesn't exist");
        }
      }
    }
  }

  /** A TLS version by upstream's name, or "" for its default, with upstream's message. */
  public static final class TlsVersion implements Check {
    @Override
    public void check(String field, Object value) {
      String v = (String) value;
      if (!v.isEmpty() && !TlsNames.VERSIONS.containsKey(v)) {
        throw new ConfigException(field, "unknown tls version \"" + v + "\"");
      }
    }
  }

  /** An Elasticsearch index name (prefix). */
  public static final class IndexName implements Check {
    @Override
    public void check(String field, Object value) {
      String s = (String) value;
      if (!s.matches("[a-z0-9][a-z0-9._-]{0,200}")) {
        throw new ConfigException(
            field, "must be lower case letters, digits, '.', '_' or '-', got \"" + s + "\"");
      }
    }
  }

  /** A quantity of bytes of at least 1Mi. */
  public static final class AtLeastMebibyte implements Check {
    @Override
    public void check(String field, Object value) {
      if (ConfigValidator.bytes(field, (String) value) < 1L << 20) {
        throw new ConfigException(field, "must be at least 1Mi, got " + value);
      }
    }
  }

  /** A quantity of bytes of at least 1Ki. */
  public static final class AtLeastKibibyte implements Check {
    @Override
    public void check(String field, Object value) {
      if (ConfigValidator.bytes(field, (String) value) < 1L << 10) {
        throw new ConfigException(field, "must be at least 1Ki, got " + value);
      }
    }
  }

  /** "" (the root) or an absolute cgroupfs path. */
  public static final class CgroupPath implements Check {
    @Override
    public void check(String field, Object value) {
      String s = (String) value;
      if (!s.isEmpty() && !s.startsWith("/")) {
        throw new ConfigException(
            field, "must be an absolute cgroup path such as /, got \"" + s + "\"");
      }
    }
  }

  /** A CFS period, 1µs to 1s as upstream's. */
  public static final class CfsPeriod implements Check {
    @Override
    public void check(String field, Object value) {
      Duration d = (Duration) value;
      if (d.compareTo(Duration.ofNanos(1000)) < 0 || d.compareTo(Duration.ofSeconds(1)) > 0) {
        throw new ConfigException(
            field, "must be between 1µs and 1s, inclusive, got " + Durations.format(d));
      }
    }
  }

  /** Each of {@code enforceNodeAllocatable} known, and one jkubelet can enforce. */
  public static final class Enforcements implements Check {
    private static final Set<String> KNOWN = Set.of("pods", "system-reserved", "kube-reserved");

    @Override
    public void check(String field, Object value) {
      for (Object o : (List<?>) value) {
        String e = (String) o;
        if (!KNOWN.contains(e) && !e.equals("none")) {
          throw new ConfigException(
              field,
              "option \""
                  + e
                  + "\" is not valid: use pods, system-reserved, kube-reserved or none");
        }
        if (!e.equals("pods") && !e.equals("none")) {
          throw new ConfigException(
              field,
              "\""
                  + e
                  + "\" needs "
                  + (e.equals("kube-reserved") ? "kubeReservedCgroup" : "systemReservedCgroup")
                  + ", which jkubelet does not support yet");
        }
      }
    }
  }
}
