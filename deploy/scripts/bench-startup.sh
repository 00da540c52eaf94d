#!/usr/bin/env bash
# Pod startup benchmark: N pods of M busybox containers, started by jkubelet from the file source,
# beside the same containers started with `docker run` directly (each pod's sandbox first, then
# its app containers joined to it; pods in parallel). Prints both times and their ratio.
#
# Usage: deploy/scripts/bench-startup.sh [N] [M] [ROUNDS]     (defaults: 10 3 3)
# jkubelet's time runs from writing the manifests until its last "Started container" event, i.e.
# until the engine has started the last app container (the same point `docker run -d` returns).
# It is read from jkubelet's log, so measuring costs neither jkubelet nor the engine any work.
set -euo pipefail
N=${1:-10}; M=${2:-3}; ROUNDS=${3:-3}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$root/deploy/scripts/build-env.sh"
launcher=$root/agent/target/jkubelet/bin/jkubelet
if [ ! -x "$launcher" ] || [ -n "$(find "$root/agent/src" "$root/config/src" -newer "$launcher" -print -quit)" ]; then
  (cd "$root" && mvn -B -ntp -q -DskipTests package)
fi

run=bench-$$-$RANDOM
node=$run
work=$(mktemp -d)
mkdir -p "$work/manifests"
port=$((20000 + RANDOM % 20000))
jk_pid=""
cleanup() {
  [ -n "$jk_pid" ] && kill "$jk_pid" 2>/dev/null && wait "$jk_pid" 2>/dev/null || true
  ids=$(docker ps -aq --filter "label=io.jkubelet.node=$node"; docker ps -aq --filter "label=io.jkubelet.bench=$run")
  [ -n "$ids" ] && docker rm -f $ids >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

now() { date +%s.%N; }
started_in_round() { grep -c "bench-$1-.*reason: 'Started' Started container" "$work/jkubelet.log" || true; }
# Epoch seconds of the last Started event of the round, from the log's ISO timestamps.
last_started_at() {
  date -d "$(grep "bench-$1-.*reason: 'Started' Started container" "$work/jkubelet.log" | tail -n 1 | cut -d' ' -f1)" +%s.%N
}

direct_round() {
  local r=$1 start end
  local pids=()
  start=$(now)
  for i in $(seq 1 "$N"); do
    (
      sb=$(docker run -d --label "io.jkubelet.bench=$run" --ipc shareable jkubelet/pause:3.2)
      for j in $(seq 1 "$M"); do
        docker run -d --label "io.jkubelet.bench=$run" --label io.kubernetes.docker.type=container \
          --network "container:$sb" --ipc "container:$sb" jkubelet/busybox:1.35 sleep 3600 >/dev/null
      done
    ) &
    pids+=($!)
  done
  wait "${pids[@]}" # not a bare wait: jkubelet runs in the background too
  end=$(now)
  docker rm -f $(docker ps -aq --filter "label=io.jkubelet.bench=$run") >/dev/null
  awk -v a="$start" -v b="$end" 'BEGIN {print b - a}'
}

write_manifests() { # round
  for i in $(seq 1 "$N"); do
    {
      printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: bench-%s-%s}\nspec:\n  terminationGracePeriodSeconds: 2\n  containers:\n' "$1" "$i"
      for j in $(seq 1 "$M"); do
        printf '  - {name: c%s, image: "jkubelet/busybox:1.35", command: [sleep, "3600"]}\n' "$j"
      done
    } > "$work/p-$i.tmp"
  done
  for i in $(seq 1 "$N"); do mv "$work/p-$i.tmp" "$work/manifests/p-$i.yaml"; done
}

jkubelet_round() {
  local r=$1 start end want=$((N * M))
  start=$(now)
  write_manifests "$r"
  until [ "$(started_in_round "$r")" -ge "$want" ]; do sleep 0.2; done
  end=$(last_started_at "$r")
  rm -f "$work"/manifests/*.yaml
  until [ -z "$(docker ps -aq --filter "label=io.jkubelet.node=$node")" ]; do sleep 0.2; done
  awk -v a="$start" -v b="$end" 'BEGIN {print b - a}'
}

"$launcher" run --pod-manifest-path "$work/manifests" --hostname-override "$node" --root-dir "$work/root" \
  --read-only-port "$port" --port "$((port + 1))" --healthz-port 0 --address 127.0.0.1 --pod-infra-container-image jkubelet/pause:3.2 \
  > "$work/jkubelet.log" 2>&1 &
jk_pid=$!
until curl -sf "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; do sleep 0.2; done
# Warm up both paths once (a running agent is warm; so is the engine's image cache).
N_SAVE=$N; N=1; jkubelet_round warmup >/dev/null; direct_round warmup >/dev/null; N=$N_SAVE

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
jk=(); dr=()
for r in $(seq 1 "$ROUNDS"); do
  dr+=("$(direct_round "$r")")
  jk+=("$(jkubelet_round "$r")")
  printf 'round %d: docker run %.2f s, jkubelet %.2f s\n' "$r" "${dr[-1]}" "${jk[-1]}"
done
d=$(printf '%s\n' "${dr[@]}" | median)
j=$(printf '%s\n' "${jk[@]}" | median)
printf '\n%d pods x %d containers, median of %d rounds on %d cores:\n' "$N" "$M" "$ROUNDS" "$(nproc)"
printf '  docker run directly: %.2f s\n  jkubelet:            %.2f s\n  ratio:               %.2fx\n' "$d" "$j" "$(awk -v a="$j" -v b="$d" 'BEGIN {print a / b}')"
