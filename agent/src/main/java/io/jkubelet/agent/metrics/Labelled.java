package io.jkubelet.agent.metrics;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * A metric kept by the agent (a {@link Counter}, a {@link Gauge}, a {@link Histogram}): one child
 * per combination of its label values, made at its first use. A metric without labels has its one
 * child from the start, so that it is exposed (as 0) before it is first used, as the Prometheus
 * clients do. Thread-safe.
 *
 * @param <C> the child: the state of one series
 */
abstract sealed class Labelled<C> implements Collector permits Counter, Gauge, Histogram {
  final String name;
  final String help;
  private final Family.Type type;
  private final String[] labelNames;
  private final ConcurrentHashMap<List<String>, C> children = new ConcurrentHashMap<>();
  private final Supplier<C> newChild;
  private final C unlabelled;

  Labelled(String name, String help, String[] labelNames, Family.Type type, Supplier<C> newChild) {
    checkLabelNames(name, labelNames);
    this.name = Family.requireMetricName(name);
    this.help = help;
    this.type = type;
    this.labelNames = labelNames.clone();
    this.newChild = newChild;
    this.unlabelled = labelNames.length == 0 ? child(List.of()) : null;
  }

  /** The child of one combination of label values, in the order of the label names. */
  public final C labelValues(String... values) {
    if (values.length != labelNames.length) {
      throw new IllegalArgumentException(
          name + ": " + labelNames.length + " label values expected: " + Arrays.toString(values));
    }
    return child(List.of(values));
  }

  private C child(List<String> values) {
    C c = children.get(values);
    return c != null ? c : children.computeIfAbsent(values, v -> newChild.get());
  }

  /** The child of a metric without labels. */
  final C unlabelled() {
    if (unlabelled == null) {
      throw new IllegalStateException(name + " has labels: use labelValues");
    }
    return unlabelled;
  }

  /** The family, its series in any order ({@link Family#samples} sorts them). */
  @Override
  public final List<Family> collect() {
    Family f = new Family(name, type, help);
    children.forEach((values, child) -> add(f, labels(values), child));
    return List.of(f);
  }

  /** Adds the series of one child, whose labels are {@code labels}. */
  abstract void add(Family f, String[] labels, C child);

  private String[] labels(List<String> values) {
    String[] pairs = new String[labelNames.length * 2];
    for (int i = 0; i < labelNames.length; i++) {
      pairs[2 * i] = labelNames[i];
      pairs[2 * i + 1] = values.get(i);
    }
    return Family.sortedPairs(pairs);
  }

  /** Label names in the text format's legacy set, none twice, none of the reserved {@code __}. */
  private static void checkLabelNames(String name, String[] labelNames) {
    Set<String> seen = new HashSet<>();
    for (String l : labelNames) {
      String fault =
          !Family.validName(l, false)
              ? "not a label name"
              : l.startsWith("__")
                  ? "a label name of the reserved __ prefix"
                  : !seen.add(l) ? "a label name given twice" : null;
      if (fault != null) {
        throw new IllegalArgumentException(
            name + ": " + fault + ": " + l + " in " + Arrays.toString(labelNames));
      }
    }
  }
}
