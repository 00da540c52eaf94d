#!/usr/bin/env bash
# Event correlator benchmark: events/s through EventCorrelator.correlate() on one thread, with
# 10,000 distinct pods (JMH, agent/src/test/java/io/jkubelet/agent/bench/CorrelatorBench.java).
#
# Usage: deploy/scripts/bench-events.sh [extra JMH options]
# The figure to read is the Score of CorrelatorBench.correlate, in ops/s (one op = one event).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$root/deploy/scripts/build-env.sh"
offline=-o
[ -n "${JKUBELET_MVN_ONLINE:-}" ] && offline=
(cd "$root" && mvn -B -ntp -q $offline -pl agent -am -DskipTests test-compile)
# The reactor build above is what runs: its classes come before the installed jkubelet-config jar.
cp=$(cd "$root/agent" && mvn -q $offline dependency:build-classpath -Dmdep.outputFile=/dev/stdout -Dmdep.includeScope=test)
exec "$JAVA_HOME/bin/java" -cp "$root/agent/target/test-classes:$root/agent/target/classes:$root/config/target/classes:$cp" \
  org.openjdk.jmh.Main CorrelatorBench -f 1 -wi 2 -i 3 "$@"
