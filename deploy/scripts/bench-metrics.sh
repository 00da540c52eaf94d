#!/usr/bin/env bash
# Metrics benchmark: the cost of one scrape of /metrics, /metrics/probes, /metrics/resource and of
# /stats/summary's JSON at 110 pods (a sandbox and 2 containers each), without the HTTP server
# (JMH, agent/src/test/java/io/jkubelet/agent/bench/MetricsScrapeBench.java). The series come from
# the real decorators and collectors over the fake runtime; the summary reads a fake cgroup v1 tree
# of 330 containers from a temp directory on every call (no cache).
#
# Usage: deploy/scripts/bench-metrics.sh [extra JMH options]
# The figures to read are the Scores, in ms per scrape; the goal for /metrics is under 20 ms.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$root/deploy/scripts/build-env.sh"
offline=-o
[ -n "${JKUBELET_MVN_ONLINE:-}" ] && offline=
# One reactor build: the class path names the config module's classes, not an installed jar. The
# agent's class path is written last, over the config module's.
cpfile=$(mktemp); trap 'rm -f "$cpfile"' EXIT
(cd "$root" && mvn -B -ntp -q $offline -pl agent -am -DskipTests test-compile dependency:build-classpath \
  -Dmdep.outputFile="$cpfile" -Dmdep.includeScope=test)
cp=$(cat "$cpfile")
"$JAVA_HOME/bin/java" -cp "$root/agent/target/test-classes:$root/agent/target/classes:$root/config/target/classes:$cp" \
  org.openjdk.jmh.Main MetricsScrapeBench -f 1 "$@"
