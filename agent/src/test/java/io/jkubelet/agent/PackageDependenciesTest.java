package io.jkubelet.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The subsystem packages depend on each other without cycles, and none depends on the root package
 * or {@code cli}, as {@code ARCHITECTURE.md} says. Read from the main sources' imports.
 */
class PackageDependenciesTest {
  private static final Path MAIN = Path.of("src/main/java/io/jkubelet/agent");
  private static final Pattern IMPORT =
      Pattern.compile("^import (?:static )?io\\.jkubelet\\.agent\\.([a-z]+)?\\.?([A-Za-z]*)");

  @Test
  void subsystemPackagesFormNoCycle() {
    Map<String, Set<String>> graph = graph();
    assertThat(graph).containsKeys("loop", "runtime", "status", "util");
    List<String> cycle = findCycle(graph);
    assertThat(cycle).as("a package cycle").isEmpty();
  }

  @Test
  void noSubsystemImportsTheRootPackageOrTheCli() {
    Map<String, Set<String>> graph = graph();
    graph.forEach(
        (pkg, deps) -> {
          if (!pkg.equals("cli")) {
            assertThat(deps).as(pkg + "'s imports").doesNotContain("(root)", "cli");
          }
        });
  }

  /**
   * The root package holds the composition root and the loop's handler, not wiring helpers: the
   * parts it builds from are in packages of their own.
   */
  @Test
  void theRootPackageHoldsOnlyTheCompositionRootAndTheHandler() throws IOException {
    try (Stream<Path> files = Files.list(MAIN)) {
      assertThat(files.filter(Files::isRegularFile).map(f -> f.getFileName().toString()))
          .containsExactlyInAnyOrder("Agent.java", "Kubelet.java", "package-info.java");
    }
  }

  /**
   * What a pod's spec says (its containers, requests, restart rule, waiting reasons) is read from
   * {@code pod}, one definition for all: the status and admission do not reach into the runtime
   * manager for it.
   */
  @Test
  void statusAndAdmissionDoNotImportTheRuntimeManager() {
    Map<String, Set<String>> graph = graph();
    assertThat(graph.get("status")).as("status's imports").doesNotContain("kuberuntime");
    assertThat(graph.get("admission")).as("admission's imports").doesNotContain("kuberuntime");
  }

  /** Package (first segment below io.jkubelet.agent) to the packages it imports. */
  private static Map<String, Set<String>> graph() {
    Map<String, Set<String>> graph = new TreeMap<>();
    try (Stream<Path> files = Files.walk(MAIN)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
        Path rel = MAIN.relativize(f);
        if (rel.getNameCount() < 2) {
          continue; // the root package may import anything
        }
        String pkg = rel.getName(0).toString();
        Set<String> deps = graph.computeIfAbsent(pkg, k -> new TreeSet<>());
        for (String line : Files.readAllLines(f)) {
          Matcher m = IMPORT.matcher(line);
          if (m.find()) {
            String dep = m.group(1) == null ? "(root)" : m.group(1);
            if (!dep.equals(pkg)) {
              deps.add(dep);
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return graph;
  }

  /** A cycle as the list of packages on it, or empty when there is none. */
  private static List<String> findCycle(Map<String, Set<String>> graph) {
    Map<String, Integer> state = new TreeMap<>(); // 1 on the path, 2 done
    List<String> path = new ArrayList<>();
    for (String start : graph.keySet()) {
      List<String> cycle = visit(start, graph, state, path);
      if (!cycle.isEmpty()) {
        return cycle;
      }
    }
    return List.of();
  }

  private static List<String> visit(
      String pkg, Map<String, Set<String>> graph, Map<String, Integer> state, List<String> path) {
    Integer s = state.get(pkg);
    if (s != null && s == 2) {
      return List.of();
    }
    if (s != null && s == 1) {
      List<String> cycle = new ArrayList<>(path.subList(path.indexOf(pkg), path.size()));
      cycle.add(pkg);
      return cycle;
    }
    state.put(pkg, 1);
    path.add(pkg);
    for (String dep : graph.getOrDefault(pkg, Set.of())) {
      List<String> cycle = visit(dep, graph, state, path);
      if (!cycle.isEmpty()) {
        return cycle;
      }
    }
    path.remove(path.size() - 1);
    state.put(pkg, 2);
    return List.of();
  }
}
