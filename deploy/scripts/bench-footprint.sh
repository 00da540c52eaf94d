#!/usr/bin/env bash
# Footprint benchmark (issue 14): what jkubelet costs on its node, in cluster mode, with PODS
# one-container pods bound to it (a third of them with an httpGet readiness and a tcpSocket
# liveness probe, period 10 s) and its kubelet API on.
#
# It starts a control plane (k8s-up.sh), jkubelet as its own node (k8s-node-kubeconfig.sh), creates
# the pods and waits until they all run. Then it stops jkubelet (the pods keep running) and starts
# it again, and times the start-up: from the process start until the Node is Ready with a heartbeat
# of the new process and the kubelet API's /pods shows every pod Running with all its containers
# running (the pods adopted, none restarted). After WARMUP seconds it measures, over an IDLE-second
# window: CPU (utime + stime of the process, as a share of one core), RSS, threads (by name),
# file descriptors, and the heap after a full GC (jcmd GC.run, then the old generation's use in
# GC.heap_info).
#
# Usage: deploy/scripts/bench-footprint.sh [PODS] [MINUTES]     (defaults: 110 0)
#   MINUTES > 0: then a soak of MINUTES minutes (of each agent, with REFERENCE=1): pods are created
#                and deleted continuously (CHURN pods at a time, one created and one deleted every
#                CHURN_PERIOD s), and the same figures are printed every minute; growth is judged
#                from the first to the last, and also over the second half alone (from minute
#                MINUTES/2): jkubelet's compiler has warmed to the churn's code by then, so growth
#                there is what a leak adds.
#   IDLE=60 WARMUP=30          seconds of the idle window; seconds to settle before it
#   SETTLE=60                  seconds the pods run before the restart, so that the start-up is
#                              timed on a warm node rather than one still busy starting its pods
#                              (0: restart as soon as they all run); the load average is printed
#   RESTARTS=3                 restarts timed one after the other (SETTLE s apart); the table shows
#                              their median, each is printed
#   NMT=1                      also runs jkubelet with -XX:NativeMemoryTracking=summary and prints
#                              VM.native_memory summary and the top of GC.class_histogram
#                              (NMT_TOP lines, default 25); in a soak, also what native memory
#                              grew by from its first minute to its last
#   JKUBELET_JAVA_OPTS=...     passed to the launcher (e.g. to try other JVM flags)
#   REFERENCE=1                afterwards, the same for the upstream kubelet v1.20.2, built once from
#                              the same source as the API server (see k8s-up.sh), never at the same
#                              time as jkubelet; its start-up is timed to the Node Ready with a
#                              heartbeat of the new process and every pod's containers running;
#                              REFERENCE=only measures the upstream kubelet alone. NOTE: it runs on
#                              the machine's Docker engine, and an upstream kubelet kills every
#                              other kubelet's pods on its engine: only on a machine of its own
#                              (bench-compare.sh runs both on an engine of its own, bench-engine.sh)
#   KEEP_LOG=1                 keep the agents' logs
# Environment as k8s-up.sh: JKUBELET_BENCH_K8S_STATE (default /tmp/jkubelet-k8s-bench),
# JKUBELET_APISERVER_PORT, JKUBELET_ETCD_PORT; KUBELET_PORT (default 12250).
set -euo pipefail
PODS=${1:-110}; MINUTES=${2:-0}
IDLE=${IDLE:-60}; WARMUP=${WARMUP:-30}; SETTLE=${SETTLE:-60}; RESTARTS=${RESTARTS:-3}
CHURN=${CHURN:-5}; CHURN_PERIOD=${CHURN_PERIOD:-3}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$root/deploy/scripts/bench-lib.sh"
cache=${JKUBELET_K8S_CACHE:-/var/cache/jkubelet-k8s}
launcher=$root/agent/target/jkubelet/bin/jkubelet
offline=-o
[ -n "${JKUBELET_MVN_ONLINE:-}" ] && offline=
if [ ! -x "$launcher" ] || [ -n "$(find "$root/agent/src" "$root/config/src" -newer "$launcher" -print -quit)" ]; then
  (cd "$root" && mvn -B -ntp -q $offline -pl agent -am -DskipTests package)
fi

# The class-data archive holds the classes of the run that wrote it, at its exit (README,
# "Footprint"), and the pages of it that a run maps are part of its RSS: one left by an earlier run
# that did more, or less, than this benchmark would move the figures. The benchmark's first run
# (which creates the pods) writes its own when it is stopped for the first restart.
[ "${REFERENCE:-}" = only ] || rm -f "$(dirname "$launcher")/../lib/jkubelet-run-cluster.jsa"

state=${JKUBELET_BENCH_K8S_STATE:-/tmp/jkubelet-k8s-bench}
k8s_started=''
running "$state/apiserver.pid" || k8s_started=1
kubeconfig=$("$root/deploy/scripts/k8s-up.sh" "$state")
kport=${KUBELET_PORT:-12250}
pki=$state/pki
server=$(sed -n 's/.*server: "\([^"]*\)".*/\1/p' "$kubeconfig")
work=$(mktemp -d)
agent_pid='' node='' churn_pid='' nodes=()
kubectl_() { "$cache/bin/kubectl" --kubeconfig "$kubeconfig" "$@"; }

cleanup() {
  local rc=$? n ids
  [ -n "$churn_pid" ] && { kill "$churn_pid" 2>/dev/null && wait "$churn_pid" 2>/dev/null || true; }
  stop_agent
  for n in "${nodes[@]}"; do
    kubectl_ delete pods --all --grace-period=0 --force -l "footprint-node=$n" >/dev/null 2>&1 || true
    ids=$(docker ps -aq --filter "label=io.jkubelet.node=$n")
    [ -n "$ids" ] && docker rm -f $ids >/dev/null 2>&1 || true
    # The upstream kubelet's containers carry the pod's namespace and name only.
    ids=$(docker ps -aq --filter "label=io.kubernetes.pod.namespace=footprint-$n")
    [ -n "$ids" ] && docker rm -f $ids >/dev/null 2>&1 || true
    kubectl_ delete namespace "footprint-$n" --wait=false >/dev/null 2>&1 || true
    kubectl_ delete node "$n" --wait=false >/dev/null 2>&1 || true
  done
  if [ -n "${KEEP_LOG:-}" ]; then
    for f in "$work"/*.log; do [ -f "$f" ] && cp "$f" "${TMPDIR:-/tmp}/footprint-$(basename "$f")" && echo "bench-footprint: kept ${TMPDIR:-/tmp}/footprint-$(basename "$f")" >&2; done
  fi
  grep -o " $work/[^ ]*" /proc/mounts | sort -r | xargs -r -n1 umount -l 2>/dev/null || true
  rm -rf "$work"
  [ -n "$k8s_started" ] && "$root/deploy/scripts/k8s-down.sh" "$state"
  return "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
agent_log=$work/agent.log
die() { echo "bench-footprint: $*" >&2; [ -f "$agent_log" ] && tail -n 20 "$agent_log" >&2; exit 1; }
say() { echo "bench-footprint: $*" >&2; }

stop_agent() {
  [ -n "$agent_pid" ] || return 0
  kill "$agent_pid" 2>/dev/null || true
  local i
  for i in $(seq 1 300); do kill -0 "$agent_pid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$agent_pid" 2>/dev/null || true
  wait "$agent_pid" 2>/dev/null || true
  agent_pid=''
}

# start_agent KIND: starts jkubelet or the upstream kubelet as $node; sets agent_pid and t_start.
start_agent() {
  local kind=$1 nkc
  nkc=$("$root/deploy/scripts/k8s-node-kubeconfig.sh" "$state" "$node")
  # Start just after a whole second, so that a heartbeat stamped in this second or later is the
  # new process's (the old one is gone).
  sleep "$(python3 -c 'import time; print(1.05 - time.time() % 1)')"
  t_start=$(date +%s.%N)
  bench_agent_argv "$kind" "$work/agent-$node"
  "${bench_argv[@]}" --kubeconfig "$nkc" --hostname-override "$node" --node-ip 127.0.0.1 \
    --root-dir "$work/agent-$node/root" --read-only-port 0 --port "$kport" --healthz-port 0 \
    --client-ca-file "$pki/ca.crt" --max-pods $((PODS + CHURN + 10)) \
    --pod-infra-container-image jkubelet/pause:3.2 >> "$agent_log" 2>&1 &
  agent_pid=$!
}

# The pods: PODS one-container pods bound to $node, every third with probes.
write_pods() {
  local i probes
  for i in $(seq 1 "$PODS"); do
    probes=''
    if [ $((i % 3)) -eq 0 ]; then
      probes='
    readinessProbe: {httpGet: {path: /, port: 8080}, periodSeconds: 10}
    livenessProbe: {tcpSocket: {port: 8080}, periodSeconds: 10}'
    fi
    cat <<YAML
---
apiVersion: v1
kind: Pod
metadata: {name: fp-$i, namespace: footprint-$node, labels: {footprint-node: $node}}
spec:
  nodeName: $node
  terminationGracePeriodSeconds: 1
  containers:
  - name: c
    image: jkubelet/busybox:1.35
    imagePullPolicy: Never
    command: [sh, -c, "mkdir -p /www && echo ok > /www/index.html && exec httpd -f -p 8080 -h /www"]$probes
YAML
  done
}

# poll MODE [N]: waits until the node is Ready with a heartbeat at or after t_start and the pods all
# run (N of them, default PODS); MODE adopted asks the agent's own /pods, MODE api the API server.
# Prints the seconds since t_start: in all, to the node Ready, to the pods running.
poll() {
  python3 - "$1" "$t_start" "$server" "$pki" "$node" "$kport" "${2:-$PODS}" "$agent_pid" <<'PY'
import datetime, json, os, ssl, sys, threading, time, urllib.request
mode, t0, server, pki, node, kport, pods, pid = sys.argv[1:]
t0, pods = float(t0), int(pods)
ctx = ssl.create_default_context(cafile=f"{pki}/ca.crt")
ctx.load_cert_chain(f"{pki}/admin.crt", f"{pki}/admin.key")
kctx = ssl._create_unverified_context()
kctx.load_cert_chain(f"{pki}/admin.crt", f"{pki}/admin.key")
def get(url, c):
    with urllib.request.urlopen(url, context=c, timeout=5) as r:
        return json.load(r)
def running(items):
    n = 0
    for p in items:
        if not p["metadata"]["name"].startswith("fp-"): continue
        st = p.get("status") or {}
        cs = st.get("containerStatuses") or []
        if st.get("phase") == "Running" and cs and all("running" in (c.get("state") or {}) for c in cs):
            n += 1
    return n
floor = int(t0)
found = {}
def node_ready():
    n = get(f"{server}/api/v1/nodes/{node}", ctx)
    for c in n["status"].get("conditions") or []:
        hb = datetime.datetime.strptime(c["lastHeartbeatTime"], "%Y-%m-%dT%H:%M:%SZ")
        hb = hb.replace(tzinfo=datetime.timezone.utc).timestamp()
        if c["type"] == "Ready" and c["status"] == "True" and hb >= floor:
            return True
    return False
def pods_running():
    if mode == "adopted":
        items = get(f"https://127.0.0.1:{kport}/pods", kctx)["items"]
    else:
        items = get(f"{server}/api/v1/pods?fieldSelector=spec.nodeName={node}", ctx)["items"]
    return running(items) >= pods
# Each condition polled on a thread of its own, so that a slow answer to one never delays the other.
def watch(name, check):
    while name not in found and time.time() < deadline:
        try:
            if check():
                found[name] = time.time() - t0
                return
        except Exception:
            pass
        time.sleep(0.05)
deadline = time.time() + 600
threads = [threading.Thread(target=watch, args=a, daemon=True) for a in (("node", node_ready), ("pods", pods_running))]
for t in threads: t.start()
while len(found) < 2 and time.time() < deadline:
    if not os.path.exists(f"/proc/{pid}"): sys.exit("the agent exited")
    time.sleep(0.1)
if len(found) == 2:
    print(f"{max(found.values()):.2f} {found['node']:.2f} {found['pods']:.2f}")
    sys.exit(0)
sys.exit("timed out")
PY
}

ticks() { awk '{sub(/^.*\) /, ""); print $12 + $13}' "/proc/$1/stat"; }
status_field() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status"; }
thread_names() { { cat /proc/"$1"/task/*/comm 2>/dev/null || true; } | sed -E 's/[0-9]+/N/g' | sort | uniq -c | sort -rn; }
# in_mib KIB: KiB as MiB, or "-" as it is.
in_mib() { if [ "$1" = - ]; then echo -; else echo "$(($1 / 1024))"; fi; }
# heap_after_gc PID: KiB used in the Java heap after a full GC ("-" for a Go process). A full
# collection leaves the young generation empty, and what it holds by the time GC.heap_info answers
# (another jcmd, a fraction of a second later) was allocated since: 0.5-3 MiB under the soak's
# churn. So only the older generation counts where the heap has two (serial, parallel).
heap_after_gc() {
  [ "$kind" = jkubelet ] || { echo -; return; }
  jcmd "$1" GC.run >/dev/null 2>&1 || { echo -; return; }
  # The heap's generations (or regions) are the lines that do not start with a space.
  jcmd "$1" GC.heap_info 2>/dev/null | awk '/^[^ ]/ && / used / && $1 !~ /^(DefNew|PSYoungGen)$/ {
      for (i = 1; i <= NF; i++) if ($i == "used") { v = $(i + 1); sub(/K,?$/, "", v); s += v } }
    END { print s + 0 }'
}
# figures PID: rss_kib threads fds
figures() { echo "$(status_field "$1" VmRSS) $(status_field "$1" Threads) $(ls "/proc/$1/fd" | wc -l)"; }

hz=$(getconf CLK_TCK)
results=()
# run KIND: the whole measurement for one agent; appends a line to results.
run() {
  kind=$1
  node=fp-$kind-$$
  nodes+=("$node")
  agent_log=$work/$kind.log
  : > "$agent_log"
  local extra=''
  [ -n "${NMT:-}" ] && [ "$kind" = jkubelet ] && extra=-XX:NativeMemoryTracking=summary
  export JKUBELET_JAVA_OPTS="${JKUBELET_JAVA_OPTS:-} $extra"
  start_agent "$kind"
  say "$kind pid $agent_pid, node $node"
  poll api 0 >/dev/null || die "$kind: node $node not Ready"
  kubectl_ create namespace "footprint-$node" >/dev/null
  until kubectl_ get serviceaccount default -n "footprint-$node" >/dev/null 2>&1; do sleep 0.5; done
  write_pods > "$work/pods.yaml"
  local t0=$SECONDS
  kubectl_ create -f "$work/pods.yaml" >/dev/null
  poll api >/dev/null || die "the $PODS pods did not all run"
  say "$PODS pods running after $((SECONDS - t0)) s; restarting $kind $RESTARTS times, $SETTLE s apart"
  local before after start starts=() i
  before=$(docker ps -q --filter "label=io.kubernetes.pod.namespace=footprint-$node" | sort | md5sum)
  for i in $(seq 1 "$RESTARTS"); do
    sleep "$SETTLE"
    say "restarting $kind (load $(cut -d' ' -f1-3 /proc/loadavg))"
    stop_agent
    start_agent "$kind"
    if [ "$kind" = jkubelet ]; then start=$(poll adopted) || die "no start-up"; else start=$(poll api) || die "no start-up"; fi
    say "start-up: $start (total, node Ready, pods)"
    starts+=("${start%% *}")
  done
  start=$(printf '%s\n' "${starts[@]}" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
  say "start-up of $kind, median of ${#starts[@]}: $start s (${starts[*]})"
  after=$(docker ps -q --filter "label=io.kubernetes.pod.namespace=footprint-$node" | sort | md5sum)
  [ "$before" = "$after" ] || say "WARNING: the pods' containers changed across the restarts"
  local f0; f0=$(figures "$agent_pid")
  say "settling $WARMUP s, then measuring CPU over $IDLE s"
  sleep "$WARMUP"
  local c0 c1 w0 w1
  c0=$(ticks "$agent_pid"); w0=$(date +%s.%N)
  sleep "$IDLE"
  c1=$(ticks "$agent_pid"); w1=$(date +%s.%N)
  kill -0 "$agent_pid" 2>/dev/null || die "$kind exited"
  local f; f=$(figures "$agent_pid")
  thread_names "$agent_pid" > "$work/threads-$kind"
  local heap; heap=$(heap_after_gc "$agent_pid")
  local cpu; cpu=$(awk -v a="$c0" -v b="$c1" -v s="$w0" -v e="$w1" -v hz="$hz" 'BEGIN {printf "%.2f", (b - a) / hz / (e - s) * 100}')
  read -r rss threads fds <<< "$f"
  results+=("$(printf '%-9s %7.0f %8s %8d %6d %12s %9s' "$kind" "$((rss / 1024))" "$cpu" "$threads" "$fds" \
    "$(in_mib "$heap")" "${start%% *}")")
  say "RSS of $kind: $(status_field "$agent_pid" RssAnon) KiB anonymous, $(status_field "$agent_pid" RssFile) KiB of files"
  say "threads of $kind by name:"; sed 's/^/    /' "$work/threads-$kind" >&2
  if [ -n "${NMT:-}" ] && [ "$kind" = jkubelet ]; then
    jcmd "$agent_pid" VM.native_memory summary | grep -E '^(Total|-)|committed' | grep -E 'Total|^-' | sed 's/^/    /' >&2
    jcmd "$agent_pid" GC.class_histogram | head -n "${NMT_TOP:-25}" | sed 's/^/    /' >&2
  fi
  [ "$MINUTES" -gt 0 ] && soak
  stop_agent
  kubectl_ delete namespace "footprint-$node" --wait=false >/dev/null 2>&1 || true
  ids=$(docker ps -aq --filter "label=io.kubernetes.pod.namespace=footprint-$node")
  [ -n "$ids" ] && docker rm -f $ids >/dev/null 2>&1 || true
  return 0
}

churn() {
  local k=0
  while :; do
    k=$((k + 1))
    sed -e "s/name: fp-1,/name: churn-$k,/" <(write_pods_one) | kubectl_ create -f - >/dev/null 2>&1 || true
    [ "$k" -gt "$CHURN" ] && kubectl_ delete pod -n "footprint-$node" "churn-$((k - CHURN))" --wait=false >/dev/null 2>&1 || true
    sleep "$CHURN_PERIOD"
  done
}
write_pods_one() { PODS=1 write_pods; }

soak() {
  say "soak of $kind: $MINUTES minutes, $CHURN churning pods, one created and one deleted every $CHURN_PERIOD s"
  churn & churn_pid=$!
  printf '%-6s %8s %9s %8s %8s %6s %12s\n' minute "RSS MiB" "anon MiB" "CPU %" threads fds "heap/GC MiB" | tee "$work/soak" >&2
  local m c0 w0 c1 w1
  c0=$(ticks "$agent_pid"); w0=$(date +%s.%N)
  for m in $(seq 1 "$MINUTES"); do
    sleep 60
    kill -0 "$agent_pid" 2>/dev/null || die "$kind exited in the soak"
    c1=$(ticks "$agent_pid"); w1=$(date +%s.%N)
    read -r rss threads fds <<< "$(figures "$agent_pid")"
    heap=$(heap_after_gc "$agent_pid")
    printf '%-6d %8d %9d %8s %8d %6d %12s\n' "$m" "$((rss / 1024))" "$(($(status_field "$agent_pid" RssAnon) / 1024))" \
      "$(awk -v a="$c0" -v b="$c1" -v s="$w0" -v e="$w1" -v hz="$hz" 'BEGIN {printf "%.2f", (b - a) / hz / (e - s) * 100}')" \
      "$threads" "$fds" "$(in_mib "$heap")" | tee -a "$work/soak" >&2
    [ "$m" = 1 ] && [ -n "${NMT:-}" ] && [ "$kind" = jkubelet ] && jcmd "$agent_pid" VM.native_memory baseline >/dev/null
    c0=$(ticks "$agent_pid"); w0=$(date +%s.%N)
  done
  if [ -n "${NMT:-}" ] && [ "$kind" = jkubelet ] && [ "$MINUTES" -gt 1 ]; then
    say "native memory, minute 1 to the last (committed):"
    jcmd "$agent_pid" VM.native_memory summary.diff | grep -E '^(Total|-)' | sed 's/^/    /' >&2
  fi
  kill "$churn_pid" 2>/dev/null && wait "$churn_pid" 2>/dev/null || true
  churn_pid=''
  python3 - "$work/soak" "$kind" <<'PY' >&2
import sys
rows = [l.split() for l in open(sys.argv[1])][1:]
names = ["RSS", "anonymous RSS", "CPU", "threads", "fds", "heap after GC"]
def growth(a, b):
    out = []
    for i, n in enumerate(names):
        if n == "CPU" or "-" in (a[i + 1], b[i + 1]): continue
        x, y = float(a[i + 1]), float(b[i + 1])
        g = (y - x) / x * 100 if x else 0
        out.append(f"{n} {g:+.1f} %")
    return ", ".join(out)
if len(rows) >= 2:
    print(f"soak growth of {sys.argv[2]}, first minute to last: {growth(rows[0], rows[-1])} (goal: each within 5 %)")
if len(rows) >= 4:
    half = rows[len(rows) // 2 - 1]
    print(f"soak growth of {sys.argv[2]}, second half (minute {half[0]} to the last): {growth(half, rows[-1])}")
PY
}

[ "${REFERENCE:-}" = only ] || run jkubelet
if [ -n "${REFERENCE:-}" ]; then
  "$root/deploy/scripts/kubelet-ref.sh" >/dev/null
  run kubelet
fi

echo
echo "$PODS pods in cluster mode (a third with 2 probes, period 10 s), kubelet API on; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-9s %7s %8s %8s %6s %12s %9s\n' agent "RSS MiB" "CPU %" threads fds "heap/GC MiB" "start s"
printf '%s\n' "${results[@]}"
echo "goal: RSS <= 160 MiB, idle CPU <= 5 % of one core, threads <= 40, start-up <= 2 s"
