#!/usr/bin/env bash
# Event export benchmark: events/s from jkubelet's recorder through the broadcaster, the export
# sink, the spool and _bulk into a local single-node OpenSearch (search-up.sh), the heap this takes
# above the idle JVM's, and events/s of a spool replay after an outage
# (agent/src/test/java/io/jkubelet/agent/export/ExportBench.java).
#
# Usage: deploy/scripts/bench-export.sh [EVENTS (default 200000)] [opensearch|elasticsearch VERSION]
# BENCH_BATCH (default 500) and BENCH_IN_FLIGHT (default 2) set the exporter's batching. Last, the
# same number of events as pre-built _bulk bodies straight to the server (RawBulkBench): the
# server's own ceiling on this host at this moment.
# Last of all it prints the ratio of the live export's events/s to that raw _bulk rate, the same
# server in the same run (issue 32's target: >= 0.8). Other targets: < 64 MiB extra heap, replay
# >= 10,000 events/s.
# The JVM runs with a 96 MiB heap; the figures are for the whole pipeline and the server on one
# host, so a loaded host (see the load average printed first) lowers them.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
events=${1:-200000}
kind=${2:-opensearch} version=${3:-2.11.0}
batch=${BENCH_BATCH:-500} in_flight=${BENCH_IN_FLIGHT:-2}
source "$root/deploy/scripts/build-env.sh"
offline=-o
[ -n "${JKUBELET_MVN_ONLINE:-}" ] && offline=
state=$(mktemp -d /tmp/jkubelet-bench-search.XXXXXX)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
trap '"$root/deploy/scripts/search-down.sh" "$state"; rm -rf "$state"' EXIT
url=$("$root/deploy/scripts/search-up.sh" "$kind" "$version" "$state" "$port")
# One reactor build: the agent's class path names the config module's classes, not an installed jar.
(cd "$root" && mvn -B -ntp -q $offline -pl agent -am -DskipTests test-compile \
  dependency:build-classpath -Dmdep.outputFile="$state/cp.txt" -Dmdep.includeScope=test)
cp=$(cat "$state/cp.txt")
echo "server: $kind $version at $url; cores: $(nproc); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
# A fresh server compiles its indexing path for its first minutes (its CPU per document is 2-3
# times what it is later): warm it up with raw _bulk first, so that the figures compare.
echo -n "server warm-up: "
"$JAVA_HOME/bin/java" -Xmx512m -cp "$root/agent/target/test-classes:$root/agent/target/classes:$cp" \
  io.jkubelet.agent.export.RawBulkBench "$url" "$events" "$batch" "$in_flight"
"$JAVA_HOME/bin/java" -Xmx96m -Djava.io.tmpdir="$state" -cp "$root/agent/target/test-classes:$root/agent/target/classes:$root/config/target/classes:$cp" \
  io.jkubelet.agent.export.ExportBench "$url" "$events" "$batch" "$in_flight" | tee "$state/export.out"
# The server's ceiling on this host, now: the same documents as pre-built bodies, no jkubelet code.
"$JAVA_HOME/bin/java" -Xmx512m -cp "$root/agent/target/test-classes:$root/agent/target/classes:$cp" \
  io.jkubelet.agent.export.RawBulkBench "$url" "$events" "$batch" "$in_flight" | tee "$state/raw.out"
live=$(sed -n 's/^live export: .* = \([0-9.]*\) events\/s.*/\1/p' "$state/export.out")
raw=$(sed -n 's/^raw _bulk .* = \([0-9.]*\) events\/s.*/\1/p' "$state/raw.out")
if [ -n "$live" ] && [ -n "$raw" ]; then
  awk -v l="$live" -v r="$raw" 'BEGIN {printf "export sink / raw _bulk, same server, same run: %.0f / %.0f events/s = %.2f (goal >= 0.8)\n", l, r, l / r}'
else
  echo "bench-export: no live or raw rate found in the output" >&2
  exit 1
fi
