#!/usr/bin/env bash
# Eviction benchmark (issue 31): how fast jkubelet evicts a pod that takes memory past a hard
# threshold, and whether it does so before the kernel's OOM killer. A real control plane and
# jkubelet in cluster mode (bench-lib.sh), with pods under a cgroup root of the benchmark's own
# (cgroup v1; made here, removed at exit); a kubeReserved of all but 1.5 GiB of the machine's memory
# gives kubepods a 1.5 GiB limit, and --eviction-hard=memory.available<200Mi makes the same
# threshold on allocatableMemory.available (kubepods' limit less its working set).
#
#  latency: TRIALS times, a BestEffort pod sleeps 2 s and then takes 1400 MiB at once (dd's buffer,
#           held while dd waits on a full pipe): kubepods then has less than 200 MiB available.
#           A poller on the host reads kubepods' memory files every 2 ms and notes when the
#           available memory first falls below 200 MiB; the container's end is Docker's
#           State.FinishedAt. Prints each trial, p50, p99 and max (target p99 <= 1 s).
#  oom:     TRIALS times, a BestEffort pod takes 20 MiB every 100 ms (200 MiB/s) up to 1.6 GiB,
#           past the threshold and towards kubepods' limit, 1 s after the threshold at that rate.
#           Counts the pods evicted and the kernel's OOM kills under kubepods: the kernel log's
#           oom-kill lines whose oom_memcg is below the benchmark's cgroup root (NOTE: cgroup v1's
#           memory.oom_control counts a kill in the victim's own cgroup only, which runc removes
#           with the container, so it cannot be read on kubepods) (target 0 OOM kills).
#
# Usage: deploy/scripts/bench-eviction.sh [TRIALS] [latency|oom|all]     (defaults: 20 all)
# Environment: see deploy/scripts/bench-lib.sh (state dir, ports).
set -euo pipefail
TRIALS=${1:-20}
MODE=${2:-all}
source "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh"
[ -f /sys/fs/cgroup/cgroup.controllers ] && { echo "bench: needs cgroup v1" >&2; exit 1; }
cg_root=/jkubelet-bench-ev-$$
ns=bench-ev-$$
mem_total=$(( $(awk '/^MemTotal:/ {print $2}' /proc/meminfo) * 1024 ))
kube_reserved=$((mem_total - 1536 * 1024 * 1024))
threshold=$((200 * 1024 * 1024))

ev_cleanup() {
  local rc=$?
  set +e
  [ -n "$kubeconfig" ] && kubectl_ delete namespace "$ns" --wait=false >/dev/null 2>&1
  (exit "$rc")
  bench_cleanup
  for h in /sys/fs/cgroup/*/; do
    [ -d "$h${cg_root#/}" ] && find "$h${cg_root#/}" -depth -type d -exec rmdir {} + 2>/dev/null || true
  done
  return "$rc"
}

bench_build
trap ev_cleanup EXIT
for h in /sys/fs/cgroup/*/; do
  [ -L "${h%/}" ] && continue
  mkdir -p "$h${cg_root#/}"
  if [ "$(basename "$h")" = cpuset ]; then
    cat "${h}cpuset.cpus" > "$h${cg_root#/}/cpuset.cpus"
    cat "${h}cpuset.mems" > "$h${cg_root#/}/cpuset.mems"
  fi
done

bench_cluster_up bench-ev --cgroup-root "$cg_root" --kube-reserved "memory=$kube_reserved" \
  --eviction-hard "memory.available<200Mi" --eviction-pressure-transition-period 3s \
  --image-gc-high-threshold 100
trap ev_cleanup EXIT
kubepods=/sys/fs/cgroup/memory${cg_root}/kubepods
kubectl_ create namespace "$ns" >/dev/null
until kubectl_ -n "$ns" get serviceaccount default >/dev/null 2>&1; do sleep 0.5; done

# Prints the epoch nanoseconds at which kubepods' available memory first falls below the threshold
# (or 0 after TIMEOUT seconds).
poll_crossing() {
  python3 - "$kubepods" "$threshold" "$1" <<'EOF'
import sys, time
d, threshold, timeout = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
limit = int(open(d + "/memory.limit_in_bytes").read())
end = time.time() + timeout
while time.time() < end:
    usage = int(open(d + "/memory.usage_in_bytes").read())
    inactive = 0
    for line in open(d + "/memory.stat"):
        if line.startswith("total_inactive_file "):
            inactive = int(line.split()[1])
    if limit - max(0, usage - inactive) < threshold:
        print(time.time_ns())
        sys.exit(0)
    time.sleep(0.002)
print(0)
EOF
}

pod() { # NAME COMMAND
  kubectl_ -n "$ns" apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Pod
metadata: {name: $1}
spec:
  nodeName: $node
  terminationGracePeriodSeconds: 1
  containers:
  - name: hog
    image: jkubelet/busybox:1.35
    command: [sh, -c, '$2']
EOF
}

phase() { kubectl_ -n "$ns" get pod "$1" -o jsonpath='{.status.phase}/{.status.reason}' 2>/dev/null || true; }

await_failed() { # NAME SECONDS
  local deadline=$((SECONDS + $2))
  while [ $SECONDS -lt $deadline ]; do
    case $(phase "$1") in Failed/*) return 0 ;; esac
    sleep 0.2
  done
  return 1
}

# Waits for kubepods to hold little again and the pressure to have passed (3 s transition).
settle() {
  local n=$1
  kubectl_ -n "$ns" delete pod "$n" --wait=false >/dev/null 2>&1 || true
  local deadline=$((SECONDS + 60))
  while [ $SECONDS -lt $deadline ]; do
    local used
    used=$(cat "$kubepods/memory.usage_in_bytes")
    [ "$used" -lt $((300 * 1024 * 1024)) ] && break
    sleep 0.2
  done
  sleep 4
}

finished_ns() { # POD -> the hog container's State.FinishedAt in epoch nanoseconds
  local id at
  id=$(docker ps -aq --filter "label=io.kubernetes.pod.name=$1" --filter "label=io.kubernetes.container.name=hog" | head -1)
  # The status says Failed before the kill, as upstream's: wait for the container's end.
  local deadline=$((SECONDS + 30))
  while [ "$(docker inspect -f '{{.State.Running}}' "$id")" = true ] && [ $SECONDS -lt $deadline ]; do
    sleep 0.05
  done
  at=$(docker inspect -f '{{.State.FinishedAt}}' "$id")
  python3 -c 'import sys, datetime
s = sys.argv[1].rstrip("Z")
base, frac = (s.split(".") + ["0"])[:2]
t = datetime.datetime.strptime(base, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=datetime.timezone.utc)
print(int(t.timestamp()) * 10**9 + int((frac + "000000000")[:9]))' "$at"
}

echo "bench: kubepods limit $(cat "$kubepods/memory.limit_in_bytes") bytes, threshold 200Mi, $TRIALS trials each" >&2
# The kernel's OOM kills whose memory cgroup is ours so far.
oom_kills() { dmesg | grep -c "oom_memcg=${cg_root}/" || true; }

latencies=()
lat_failed=0
[ "$MODE" = oom ] || for i in $(seq 1 "$TRIALS"); do
  n=lat-$i
  pod "$n" "sleep 2; dd if=/dev/zero bs=1400M count=1 2>/dev/null | sleep 3600"
  crossing=$(poll_crossing 60)
  if [ "$crossing" = 0 ] || ! await_failed "$n" 30; then
    echo "latency trial $i: no crossing or no eviction ($(phase "$n"))"
    lat_failed=$((lat_failed + 1)); settle "$n"; continue
  fi
  reason=$(phase "$n")
  end=$(finished_ns "$n")
  ms=$(( (end - crossing) / 1000000 ))
  latencies+=("$ms")
  echo "latency trial $i: ${ms} ms ($reason)"
  settle "$n"
done

oom_before=$(oom_kills)
evicted=0
[ "$MODE" = latency ] || for i in $(seq 1 "$TRIALS"); do
  n=ramp-$i
  before=$(oom_kills)
  pod "$n" 'sleep 2; i=0; while [ $i -lt 80 ]; do (dd if=/dev/zero bs=20M count=1 2>/dev/null | sleep 3600) & i=$((i+1)); sleep 0.1; done; wait'
  if await_failed "$n" 60 && [ "$(phase "$n")" = Failed/Evicted ]; then evicted=$((evicted + 1)); fi
  after=$(oom_kills)
  echo "oom trial $i: $(phase "$n"), kernel OOM kills in kubepods: $((after - before))"
  settle "$n"
done
oom_after=$(oom_kills)

if [ ${#latencies[@]} -gt 0 ]; then
  sorted=$(printf '%s\n' "${latencies[@]}" | sort -n)
  count=${#latencies[@]}
  p50=$(sed -n "$(( (count + 1) / 2 ))p" <<< "$sorted")
  p99=$(sed -n "$(( (count * 99 + 99) / 100 ))p" <<< "$sorted")
  max=$(tail -1 <<< "$sorted")
  echo "eviction latency (threshold crossed -> container ended): $count trials, p50 ${p50} ms, p99 ${p99} ms, max ${max} ms; $lat_failed trials without an eviction"
fi
[ "$MODE" = latency ] || echo "OOM at 200 MiB/s: $evicted of $TRIALS pods evicted, $((oom_after - oom_before)) kernel OOM kills under kubepods"
