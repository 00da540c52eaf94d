#!/usr/bin/env bash
# Thread census (issue 42): jkubelet standalone on the example manifests, as the README's first
# command runs it, under a node name of its own (so it leaves every other agent's containers on the
# engine alone), with its own root dir and ports and no QoS cgroups. Once /pods answers, it waits
# SETTLE seconds and prints the process's threads by name (a trailing number dropped, so that
# "netty-io-1" and "netty-io-2" count as one name), the JVM's own marked apart from jkubelet's.
# Then it stops jkubelet and removes the pods' containers.
#
# Usage: deploy/scripts/bench-threads.sh [SETTLE]     (default 60)
#   READ_ONLY_PORT=10355   the read-only port (the kubelet port is the next one)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$root/deploy/scripts/build-env.sh"
settle=${1:-60}
port=${READ_ONLY_PORT:-10355}
jkubelet_built
name=threads-$$
work=$(mktemp -d)
mkdir -p "$work/manifests"
cp "$root"/deploy/examples/manifests/* "$work/manifests/"
pid=''
cleanup() {
  [ -z "$pid" ] || { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }
  local ids
  ids=$(docker ps -aq --filter "label=io.jkubelet.node=$name")
  [ -z "$ids" ] || docker rm -f $ids >/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
"$root/agent/target/jkubelet/bin/jkubelet" run --pod-manifest-path "$work/manifests" \
  --hostname-override "$name" --root-dir "$work/root" --read-only-port "$port" \
  --port $((port + 1)) --healthz-port 0 --pod-infra-container-image jkubelet/pause:3.2 \
  --cgroups-per-qos=false --enforce-node-allocatable= >"$work/log" 2>&1 &
pid=$!
until curl -sf -m 2 "http://127.0.0.1:$port/pods" >/dev/null; do
  kill -0 "$pid" 2>/dev/null || { echo "bench-threads: jkubelet exited:" >&2; tail -n 20 "$work/log" >&2; exit 1; }
  sleep 0.5
done
sleep "$settle"
echo "pods: $(curl -s "http://127.0.0.1:$port/pods" | jq -r '[.items[] | .metadata.name + "=" + .status.phase] | join(" ")')"
echo "threads: $(ls "/proc/$pid/task" | wc -l) (java $("$JAVA_HOME/bin/java" -version 2>&1 | head -n 1))"
# The JVM's own threads and the virtual-thread scheduler's, by the names HotSpot gives them.
jvm='^(java|VM Thread|VM Periodic Tas|Signal Dispatch|Service Thread|Reference Handl|Finalizer|Notification Th|Native Heap Tri|Monitor Deflati|Common-Cleaner|C1 CompilerThre|C2 CompilerThre|Attach Listener|ForkJoinPool|MasterPoller|VirtualThread|Read-Poller|Write-Poller)'
for t in /proc/"$pid"/task/*; do cat "$t/comm"; done | sed -E 's/[-_ ]?[0-9]+$//' | sort | uniq -c |
  sort -rn | while read -r n what; do
    if [[ $what =~ $jvm ]]; then kind=jvm; else kind=jkubelet; fi
    printf '%4d  %-9s %s\n' "$n" "$kind" "$what"
  done
