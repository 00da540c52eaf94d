#!/usr/bin/env bash
# Pod networking benchmark, in standalone mode from the file source, on Debian's CNI plugins
# (bridge with host-local, portmap, firewall: the list a node of the test bed uses). Prints:
#   1. one pod, manifest written to its container started: on Docker's bridge and on CNI (median of
#      ROUNDS each), and the difference (goal: CNI within 0.1 s of the bridge);
#   2. N pods at once on CNI, each pod's time to its container started, p50 and p99, beside the same
#      sandboxes made directly: `docker run --network none` of the pause image, the same plugin
#      chain called by this script, then the container joined (goal: p99 within 1.1x);
#   3. the teardown of a pod's network: jkubelet's own time per pod, that is the time its log gives
#      for a detach less the time in the plugins (goal: under 50 ms).
#
# Usage: deploy/scripts/bench-network.sh [N] [ROUNDS]     (defaults: 30 5)
# jkubelet's times are read from its log (the Started events and the Network lines), so measuring
# costs it nothing. Everything runs on a bridge and a /24 of the benchmark's own.
set -euo pipefail
N=${1:-30}; ROUNDS=${2:-5}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$root/deploy/scripts/build-env.sh"
CNI_BIN=${JKUBELET_CNI_BIN:-/usr/lib/cni}
command -v jq >/dev/null || { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq jq >&2; }
launcher=$root/agent/target/jkubelet/bin/jkubelet
if [ ! -x "$launcher" ] || [ -n "$(find "$root/agent/src/main" "$root/config/src/main" -newer "$launcher" -print -quit)" ]; then
  (cd "$root" && mvn -B -ntp -q -DskipTests package)
fi

run=bnet-$$
node=$run
net=$((RANDOM % 200 + 20))
bridge=jkbn$net
work=$(mktemp -d)
mkdir -p "$work/manifests" "$work/net.d" "$work/direct"
port=$((20000 + RANDOM % 20000))
jk_pid=""
stop_jkubelet() {
  if [ -n "$jk_pid" ]; then
    kill "$jk_pid" 2>/dev/null || true
    wait "$jk_pid" 2>/dev/null || true
    jk_pid=""
  fi
}
cleanup() {
  rm -f "$work"/manifests/*.yaml
  stop_jkubelet
  ids=$(docker ps -aq --filter "label=io.jkubelet.node=$node"; docker ps -aq --filter "label=io.jkubelet.bench=$run")
  [ -z "$ids" ] || docker rm -f $ids >/dev/null 2>&1 || true
  ip link del "$bridge" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

cat >"$work/net.d/10-bench.conflist" <<EOF
{"cniVersion": "0.4.0", "name": "$bridge", "plugins": [
  {"type": "bridge", "bridge": "$bridge", "isGateway": true, "ipMasq": false,
   "ipam": {"type": "host-local", "dataDir": "$work/ipam", "ranges": [[{"subnet": "10.87.$net.0/24"}]],
            "routes": [{"dst": "0.0.0.0/0"}]}},
  {"type": "portmap", "capabilities": {"portMappings": true}},
  {"type": "firewall"}
]}
EOF

now() { date +%s.%N; }
epoch() { date -d "$1" +%s.%N; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
pct() { sort -n | awk -v p="$1" '{a[NR]=$1} END {i=int((NR*p+99)/100); if (i<1) i=1; print a[i]}'; }

start_jkubelet() { # FLAGS...
  : >"$work/jkubelet.log"
  "$launcher" run --pod-manifest-path "$work/manifests" --hostname-override "$node" --root-dir "$work/root" \
    --read-only-port "$port" --port "$((port + 1))" --healthz-port 0 --address 127.0.0.1 \
    --pod-infra-container-image jkubelet/pause:3.2 "$@" >"$work/jkubelet.log" 2>&1 &
  jk_pid=$!
  until curl -sf "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; do sleep 0.2; done
}

manifest() { # NAME
  printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: %s}\nspec:\n  terminationGracePeriodSeconds: 1\n  containers:\n  - {name: c, image: "jkubelet/busybox:1.35", command: [sleep, "3600"]}\n' "$1"
}

# Epoch seconds of pod NAME's Started event, once it is in the log.
started_at() {
  local line
  line=$(grep "$1-$node.*reason: 'Started' Started container" "$work/jkubelet.log" | tail -n 1)
  [ -n "$line" ] && epoch "$(cut -d' ' -f1 <<<"$line")"
}

# Writes the manifests of NAMES at once; prints each pod's seconds until its container started.
jkubelet_pods() {
  local t0 name t
  for name in "$@"; do manifest "$name" >"$work/$name.tmp"; done
  t0=$(now)
  for name in "$@"; do mv "$work/$name.tmp" "$work/manifests/$name.yaml"; done
  for name in "$@"; do
    until t=$(started_at "$name"); do sleep 0.1; done
    awk -v a="$t0" -v b="$t" 'BEGIN {print b - a}'
  done
}

remove_pods() {
  rm -f "$work"/manifests/*.yaml
  until [ -z "$(docker ps -aq --filter "label=io.jkubelet.node=$node")" ]; do sleep 0.2; done
}

# The plugin chain of the list, called directly: loopback, then each plugin with the previous
# result, as libcni runs it.
direct_add() { # SANDBOX_ID NETNS
  local id=$1 ns=$2 prev='' conf out
  CNI_COMMAND=ADD CNI_CONTAINERID=$id CNI_NETNS=$ns CNI_IFNAME=lo CNI_PATH=$CNI_BIN CNI_ARGS='' \
    "$CNI_BIN/loopback" <<<'{"cniVersion":"0.2.0","name":"cni-loopback","type":"loopback"}' >/dev/null
  for i in 0 1 2; do
    conf=$(jq -c --argjson i "$i" '.plugins[$i] + {name: .name, cniVersion: .cniVersion}' "$work/net.d/10-bench.conflist")
    [ -n "$prev" ] && conf=$(jq -c --argjson p "$prev" '. + {prevResult: $p}' <<<"$conf")
    out=$(CNI_COMMAND=ADD CNI_CONTAINERID=$id CNI_NETNS=$ns CNI_IFNAME=eth0 CNI_PATH=$CNI_BIN \
      CNI_ARGS="IgnoreUnknown=1;K8S_POD_INFRA_CONTAINER_ID=$id" "$CNI_BIN/$(jq -r .type <<<"$conf")" <<<"$conf")
    prev=$out
  done
  echo "$prev" >"$work/direct/$id"
}
direct_del() { # SANDBOX_ID
  local id=$1 conf
  for i in 2 1 0; do
    conf=$(jq -c --argjson i "$i" '.plugins[$i] + {name: .name, cniVersion: .cniVersion}' "$work/net.d/10-bench.conflist")
    conf=$(jq -c --slurpfile p "$work/direct/$id" '. + {prevResult: $p[0]}' <<<"$conf")
    CNI_COMMAND=DEL CNI_CONTAINERID=$id CNI_NETNS='' CNI_IFNAME=eth0 CNI_PATH=$CNI_BIN \
      CNI_ARGS="IgnoreUnknown=1;K8S_POD_INFRA_CONTAINER_ID=$id" "$CNI_BIN/$(jq -r .type <<<"$conf")" <<<"$conf" >/dev/null || true
  done
}
direct_pods() { # COUNT: prints each pod's seconds until its container started
  local t0 pids=() i
  t0=$(now)
  for i in $(seq 1 "$1"); do
    (
      sb=$(docker run -d --label "io.jkubelet.bench=$run" --network none --ipc shareable jkubelet/pause:3.2)
      pid=$(docker inspect -f '{{.State.Pid}}' "$sb")
      direct_add "$sb" "/proc/$pid/ns/net"
      docker run -d --label "io.jkubelet.bench=$run" --network "container:$sb" --ipc "container:$sb" \
        jkubelet/busybox:1.35 sleep 3600 >/dev/null
      awk -v a="$t0" -v b="$(now)" 'BEGIN {print b - a}' >"$work/direct/t-$i"
    ) &
    pids+=($!)
  done
  wait "${pids[@]}"
  cat "$work"/direct/t-*
  rm -f "$work"/direct/t-*
  for sb in $(docker ps -q --no-trunc --filter "label=io.jkubelet.bench=$run" --filter ancestor=jkubelet/pause:3.2); do
    direct_del "$sb"
  done
  docker rm -f $(docker ps -aq --filter "label=io.jkubelet.bench=$run") >/dev/null
}

echo "bench-network: $N pods, $ROUNDS rounds, on $(nproc) cores; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# 1. One pod: Docker's bridge, then CNI.
bridge_one=() cni_one=()
start_jkubelet
jkubelet_pods warm >/dev/null; remove_pods
for r in $(seq 1 "$ROUNDS"); do bridge_one+=("$(jkubelet_pods "one-b$r")"); remove_pods; done
stop_jkubelet
start_jkubelet --network-plugin=cni --cni-conf-dir="$work/net.d" --cni-bin-dir="$CNI_BIN" --cni-cache-dir="$work/cache"
jkubelet_pods warmc >/dev/null; remove_pods
for r in $(seq 1 "$ROUNDS"); do cni_one+=("$(jkubelet_pods "one-c$r")"); remove_pods; done

# 2. N pods at once on CNI, beside the same sandboxes made directly.
jk_all=() dr_all=()
names=()
for r in $(seq 1 "$ROUNDS"); do
  names=(); for i in $(seq 1 "$N"); do names+=("m$r-$i"); done
  echo "round $r: load average $(cut -d' ' -f1 /proc/loadavg)" >&2
  awk '$1 > 2 {print "bench-network: WARNING: load average " $1 " above 2"}' /proc/loadavg >&2
  dr_all+=($(direct_pods "$N"))
  jk_all+=($(jkubelet_pods "${names[@]}"))
  remove_pods
done

# 3. Teardown: jkubelet's own time per detach.
own=$(grep -o 'from [^ ]* in [0-9]* ms ([0-9]* ms in plugins)' "$work/jkubelet.log" |
  tr -d '(' | awk '{print $4 - $6}')
total=$(grep -o 'from [^ ]* in [0-9]* ms ([0-9]* ms in plugins)' "$work/jkubelet.log" | awk '{print $4}')

b=$(printf '%s\n' "${bridge_one[@]}" | median)
c=$(printf '%s\n' "${cni_one[@]}" | median)
jp50=$(printf '%s\n' "${jk_all[@]}" | pct 50); jp99=$(printf '%s\n' "${jk_all[@]}" | pct 99)
dp50=$(printf '%s\n' "${dr_all[@]}" | pct 50); dp99=$(printf '%s\n' "${dr_all[@]}" | pct 99)
printf '\n%-52s %10s %10s %8s\n' "" jkubelet reference ratio
printf '%-52s %9.3fs %9.3fs %+7.3fs\n' "one pod started, CNI vs Docker's bridge (median)" "$c" "$b" "$(awk -v a="$c" -v b="$b" 'BEGIN {print a - b}')"
printf '%-52s %9.3fs %9.3fs %7.2fx\n' "$N pods at once on CNI, p50 (direct: docker+plugins)" "$jp50" "$dp50" "$(awk -v a="$jp50" -v b="$dp50" 'BEGIN {print a / b}')"
printf '%-52s %9.3fs %9.3fs %7.2fx\n' "$N pods at once on CNI, p99" "$jp99" "$dp99" "$(awk -v a="$jp99" -v b="$dp99" 'BEGIN {print a / b}')"
printf '%-52s %8sms %8sms\n' "network teardown per pod: jkubelet's own (median)" "$(median <<<"$own")" "$(median <<<"$total")"
echo "(the teardown's second column is the whole detach, plugins included; $(wc -l <<<"$own") detaches)"
