package io.jkubelet.config;

import java.math.BigDecimal;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Upstream's {@code kubeReserved} and {@code systemReserved}: what is held back from the pods for
 * Kubernetes' daemons and for the system. Validated in the constructor as upstream's {@code
 * parseResourceList}: only {@code cpu}, {@code memory}, {@code ephemeral-storage} and {@code pid},
 * each a non-negative quantity; an error names the field.
 */
public record ReservationSettings(
    @Field(
            label = "RESOURCE=QUANTITY,...",
            doc = "What is held back for Kubernetes' daemons: cpu, memory, ephemeral-storage, pid")
        Map<String, String> kubeReserved,
    @Field(label = "RESOURCE=QUANTITY,...", doc = "What is held back for the system")
        Map<String, String> systemReserved) {

  public static final ReservationSettings DEFAULTS =
      Settings.defaults(ReservationSettings.class, false);

  /** The resources upstream lets a node reserve. */
  public static final Set<String> RESOURCES = Set.of("cpu", "memory", "ephemeral-storage", "pid");

  public ReservationSettings {
    kubeReserved = checked("kubeReserved", kubeReserved);
    systemReserved = checked("systemReserved", systemReserved);
  }

  private static Map<String, String> checked(String field, Map<String, String> m) {
    Map<String, String> out = new TreeMap<>();
    if (m == null) {
      return Map.of();
    }
    m.forEach(
        (k, v) -> {
          if (!RESOURCES.contains(k)) {
            throw new ConfigException(field, "cannot reserve \"" + k + "\" resource");
          }
          BigDecimal q;
          try {
            q = Quantities.parse(v);
          } catch (IllegalArgumentException e) {
            throw ConfigException.causedBy(field + "." + k, e.getMessage(), e);
          }
          if (q.signum() < 0) {
            throw new ConfigException(
                field, "resource quantity for \"" + k + "\" cannot be negative: " + v);
          }
          out.put(k, v);
        });
    return java.util.Collections.unmodifiableMap(out);
  }

  /**
   * What both reservations hold back of {@code resource}, in its base unit: thousandths of a core
   * for {@code cpu}, bytes for {@code memory} and {@code ephemeral-storage}, processes for {@code
   * pid}; 0 when neither reserves it.
   */
  public long reserved(String resource) {
    return amount(kubeReserved, resource) + amount(systemReserved, resource);
  }

  /** {@link #reserved} of {@code kubeReserved} alone. */
  public long kube(String resource) {
    return amount(kubeReserved, resource);
  }

  /** {@link #reserved} of {@code systemReserved} alone. */
  public long system(String resource) {
    return amount(systemReserved, resource);
  }

  private static long amount(Map<String, String> m, String resource) {
    String v = m.get(resource);
    if (v == null) {
      return 0;
    }
    BigDecimal q = Quantities.parse(v);
    return resource.equals("cpu") ? Quantities.milli(q) : Quantities.ceil(q);
  }
}
