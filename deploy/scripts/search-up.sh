#!/usr/bin/env bash
# Starts a single-node OpenSearch or Elasticsearch for the event export tests and benchmark, on
# loopback, security off, a 256 MiB heap, and prints its URL. The server's integ-test zip comes from
# Maven Central through Maven (org.opensearch.distribution.integ-test-zip:opensearch or
# org.elasticsearch.distribution.integ-test-zip:elasticsearch), and is unpacked under STATE_DIR.
# It runs on a JDK 17, chosen explicitly: $JKUBELET_SEARCH_JAVA_HOME, else the first JDK 17 that
# update-alternatives or the usual JVM directory knows. The data directory is kept, so a stop and
# a start again (the outage test) find their indices. Stop it with search-down.sh STATE_DIR.
#
# Usage: deploy/scripts/search-up.sh opensearch|elasticsearch VERSION STATE_DIR HTTP_PORT
set -euo pipefail
kind=$1 version=$2 state=$3 port=$4
mkdir -p "$state"
state=$(cd "$state" && pwd)
case "$kind" in
  opensearch) group=org.opensearch.distribution.integ-test-zip; home_var=OPENSEARCH_JAVA_HOME; opts_var=OPENSEARCH_JAVA_OPTS ;;
  elasticsearch) group=org.elasticsearch.distribution.integ-test-zip; home_var=ES_JAVA_HOME; opts_var=ES_JAVA_OPTS ;;
  *) echo "search-up.sh: kind must be opensearch or elasticsearch, got $kind" >&2; exit 2 ;;
esac

major() { # the major Java version of a java binary, or 0
  "$1" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2; exit}' | cut -d. -f1
}
jdk17() {
  for java in ${JKUBELET_SEARCH_JAVA_HOME:+"$JKUBELET_SEARCH_JAVA_HOME/bin/java"} \
      $(update-alternatives --list java 2>/dev/null || true) /usr/lib/jvm/*/bin/java; do
    [ -x "$java" ] || continue
    if [ "$(major "$java" || echo 0)" = 17 ]; then
      dirname "$(dirname "$(readlink -f "$java")")"
      return 0
    fi
  done
  echo "search-up.sh: no JDK 17 found; set JKUBELET_SEARCH_JAVA_HOME" >&2
  return 1
}
# need PACKAGE COMMAND_OR_PATH: installs Debian's PACKAGE when COMMAND_OR_PATH is missing (as root).
need() {
  command -v "$2" >/dev/null 2>&1 || [ -e "$2" ] && return 0
  [ "$(id -u)" = 0 ] || { echo "search-up.sh: need $1 (run as root to install it)" >&2; return 1; }
  echo "search-up.sh: installing $1" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$1" >&2 ||
    { apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$1" >&2; }
}
need unzip unzip
jdk17 >/dev/null 2>&1 || need openjdk-17-jre-headless /usr/lib/jvm/java-17-openjdk-amd64/bin/java

dist="$state/dist/$kind-$version"
if [ ! -x "$dist/bin/$kind" ]; then
  offline=-o
  [ -n "${JKUBELET_MVN_ONLINE:-}" ] && offline=
  zip="$HOME/.m2/repository/${group//.//}/$kind/$version/$kind-$version.zip"
  if [ ! -f "$zip" ]; then
    mvn -B -q -ntp dependency:copy -Dartifact="$group:$kind:$version:zip" \
      -DoutputDirectory="$state/download" -Dmdep.overWriteIfNewer=true >&2
    zip="$state/download/$kind-$version.zip"
  fi
  rm -rf "$state/dist.tmp" && mkdir -p "$state/dist.tmp" "$state/dist"
  (cd "$state/dist.tmp" && unzip -q "$zip")
  rm -rf "$dist" && mv "$state/dist.tmp/$kind-$version" "$dist" && rm -rf "$state/dist.tmp"
fi

if [ -f "$state/pid" ] && kill -0 "$(cat "$state/pid")" 2>/dev/null; then
  echo "search-up.sh: already running (pid $(cat "$state/pid"))" >&2
else
  java_home=$(jdk17)
  mkdir -p "$state/data" "$state/logs"
  # The server refuses to run as root: then it runs as nobody, owning its state directory.
  as=()
  if [ "$(id -u)" = 0 ]; then
    chown -R nobody: "$state"
    as=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
  fi
  "${as[@]}" env "$home_var=$java_home" "$opts_var=-Xms256m -Xmx256m -XX:-HeapDumpOnOutOfMemoryError" \
    JAVA_HOME="$java_home" \
    "$dist/bin/$kind" -d -p "$state/pid" \
    -Ediscovery.type=single-node -Enetwork.host=127.0.0.1 -Ehttp.port="$port" \
    -Etransport.port="$((port + 1))-$((port + 200))" -Epath.data="$state/data" -Epath.logs="$state/logs" \
    -Ecluster.routing.allocation.disk.threshold_enabled=false -Ecluster.name="jkubelet-$kind" \
    >"$state/stdout.log" 2>&1 || {
      echo "search-up.sh: $kind did not start; see $state/stdout.log and $state/logs" >&2
      tail -20 "$state/stdout.log" >&2; exit 1; }
fi
url="http://127.0.0.1:$port"
for i in $(seq 1 240); do
  # -d returns before the PID file is written: it is missing for a while, then names the server.
  if { [ -f "$state/pid" ] && ! kill -0 "$(cat "$state/pid")" 2>/dev/null; } ||
      { [ ! -f "$state/pid" ] && [ "$i" -gt 60 ]; }; then
    echo "search-up.sh: $kind exited; see $state/stdout.log and $state/logs" >&2
    tail -5 "$state/stdout.log" >&2; exit 1
  fi
  if curl -fsS "$url/_cluster/health?wait_for_status=yellow&timeout=1s" >/dev/null 2>&1; then
    echo "$url"
    exit 0
  fi
  sleep 0.5
done
echo "search-up.sh: $kind on $url not healthy after 120 s; see $state/logs" >&2
exit 1
