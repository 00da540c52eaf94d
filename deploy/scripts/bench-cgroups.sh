#!/usr/bin/env bash
# The cost of the pods' cgroups on a pod's start: two jkubelets side by side from the file source,
# one with cgroupsPerQOS (its QoS tree under a cgroup root of this script's own, made before and
# removed after) and one with --cgroups-per-qos=false; N Burstable pods of one busybox container
# each, one pod at a time, alternating between them, each removed before the next. Each pod is
# timed from writing its manifest to its "Started container" event, and from its SyncLoop ADD to
# the runtime's actions (the part of the sync the cgroup set-up is in), both read from the agents'
# logs, so measuring costs them nothing. Prints the medians side by side and their difference.
# Needs root (it writes /sys/fs/cgroup) and cgroup v1.
#
# Usage: deploy/scripts/bench-cgroups.sh [N]     (default: 15, at least 10)
set -euo pipefail
N=${1:-15}
[ "$N" -ge 10 ] || { echo "N must be at least 10" >&2; exit 2; }
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$root/deploy/scripts/build-env.sh"
launcher=$root/agent/target/jkubelet/bin/jkubelet
if [ ! -x "$launcher" ] || [ -n "$(find "$root/agent/src" "$root/config/src" -newer "$launcher" -print -quit)" ]; then
  (cd "$root" && mvn -B -ntp -q -DskipTests package)
fi
[ -e /sys/fs/cgroup/cgroup.controllers ] && { echo "cgroup v2: this bench makes a v1 root" >&2; exit 2; }

run=cgbench-$$-$RANDOM
node=$run
cgroot=/$run
work=$(mktemp -d)
jk_pid=""
hierarchies() { find /sys/fs/cgroup -mindepth 1 -maxdepth 1 -type d; }
stop_jkubelet() {
  for p in $jk_pid; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  jk_pid=""
}
remove_containers() {
  ids=$(docker ps -aq --filter "label=io.jkubelet.node=$node-off"; docker ps -aq --filter "label=io.jkubelet.node=$node-on")
  if [ -n "$ids" ]; then docker rm -f $ids >/dev/null 2>&1 || true; fi
}
cleanup() {
  stop_jkubelet
  remove_containers
  for h in $(hierarchies); do
    [ -d "$h$cgroot" ] || continue
    for _ in $(seq 1 50); do
      find "$h$cgroot" -depth -type d -exec rmdir {} \; 2>/dev/null || true
      [ -d "$h$cgroot" ] || break
      sleep 0.2
    done
  done
  rm -rf "$work"
}
trap cleanup EXIT

# The cgroup root, in every hierarchy (as upstream requires of --cgroup-root); cpuset's needs the
# parent's cpus and mems, which the kernel leaves empty.
for h in $(hierarchies); do
  mkdir -p "$h$cgroot"
  if [ "$(basename "$h")" = cpuset ]; then
    cat "$h/cpuset.cpus" > "$h$cgroot/cpuset.cpus"
    cat "$h/cpuset.mems" > "$h$cgroot/cpuset.mems"
  fi
done

manifest() { # mode i
  printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: %s-%s-%s}\nspec:\n  terminationGracePeriodSeconds: 1\n  containers:\n  - name: c\n    image: jkubelet/busybox:1.35\n    command: [sleep, "3600"]\n    resources: {requests: {cpu: 10m, memory: 16Mi}}\n' "$run" "$1" "$2"
}
now() { date +%s.%N; }
at() { date -d "$1" +%s.%N; } # an ISO timestamp of the log as epoch seconds
log_time() { # mode pattern: the timestamp of the first log line that matches, or nothing yet
  local line
  line=$(grep -m1 -- "$2" "$work/jkubelet-$1.log" || true)
  [ -n "$line" ] && at "$(cut -d' ' -f1 <<<"$line")"
}
one_pod() { # mode i: prints "manifest-to-Started ADD-to-actions" in seconds
  local mode=$1 name="$run-$1-$2" start end add actions
  start=$(now)
  manifest "$mode" "$2" > "$work/manifests-$mode/p.tmp" && mv "$work/manifests-$mode/p.tmp" "$work/manifests-$mode/p.yaml"
  until end=$(log_time "$mode" "$name.*reason: 'Started' Started container") && [ -n "$end" ]; do sleep 0.05; done
  add=$(log_time "$mode" "SyncLoop ADD.*$name-")
  actions=$(log_time "$mode" "actions for pod $name-")
  rm -f "$work/manifests-$mode/p.yaml"
  until [ -z "$(docker ps -aq --filter "label=io.jkubelet.node=$node-$mode")" ]; do sleep 0.1; done
  awk -v a="$start" -v b="$end" -v c="$add" -v d="$actions" 'BEGIN {print b - a, d - c}'
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
ms() { awk -v a="$1" 'BEGIN {printf "%.0f", a * 1000}'; }

# Both agents run side by side, each with its own node name and directories, and the pods
# alternate between them (which goes first alternates too), so that the machine's load, which
# drifts, weighs on both alike.
declare -A pids
for mode in off on; do
  mkdir -p "$work/manifests-$mode"
  port=$((20000 + RANDOM % 20000))
  if [ "$mode" = on ]; then flags=(--cgroup-root "$cgroot"); else flags=(--cgroups-per-qos=false --enforce-node-allocatable=); fi
  "$launcher" run --pod-manifest-path "$work/manifests-$mode" --hostname-override "$node-$mode" \
    --root-dir "$work/root-$mode" --read-only-port "$port" --port "$((port + 1))" --healthz-port 0 \
    --address 127.0.0.1 --pod-infra-container-image jkubelet/pause:3.2 --image-gc-high-threshold=100 \
    --v 2 "${flags[@]}" > "$work/jkubelet-$mode.log" 2>&1 &
  pids[$mode]=$!
  until curl -sf "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; do
    kill -0 "${pids[$mode]}" 2>/dev/null || { cat "$work/jkubelet-$mode.log" >&2; exit 1; }
    sleep 0.2
  done
done
jk_pid="${pids[off]} ${pids[on]}"
one_pod off warmup >/dev/null; one_pod on warmup >/dev/null
declare -A total sync
for i in $(seq 1 "$N"); do
  if [ $((i % 2)) = 0 ]; then order=(off on); else order=(on off); fi
  for mode in "${order[@]}"; do
    read -r t s < <(one_pod "$mode" "$i")
    total[$mode]+="$t "; sync[$mode]+="$s "
  done
done
for mode in off on; do
  printf 'cgroupsPerQOS %-3s manifest to Started (s): %s\n' "$mode" "${total[$mode]}"
done
med() { tr ' ' '\n' <<<"$1" | grep . | median; }
off_t=$(med "${total[off]}"); on_t=$(med "${total[on]}"); off_s=$(med "${sync[off]}"); on_s=$(med "${sync[on]}")
printf '\npod start, median of %d Burstable pods each, one at a time, alternating, on %d cores (load %s):\n' \
  "$N" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '                                     cgroupsPerQOS: false   true   cost\n'
printf '  manifest to Started event (ms)      %12s %7s %+6d\n' "$(ms "$off_t")" "$(ms "$on_t")" "$(( $(ms "$on_t") - $(ms "$off_t") ))"
printf '  sync start to actions (ms)          %12s %7s %+6d   (the cgroup set-up: QoS tiers, pod cgroup)\n' \
  "$(ms "$off_s")" "$(ms "$on_s")" "$(( $(ms "$on_s") - $(ms "$off_s") ))"
