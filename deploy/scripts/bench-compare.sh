#!/usr/bin/env bash
# jkubelet beside the upstream kubelet v1.20.2 (issue 32): the same workloads against each, one
# after the other, on the same machine, the same Docker engine and the same real control plane
# (k8s-up.sh), each agent joined as a node of its own. The Docker engine is one of the benchmark's
# own (bench-engine.sh: the same dockerd and containerd builds as the machine's, its own root and
# bridge), since an upstream kubelet kills every other kubelet's pods on its engine. Prints one table: per row the median of RUNS
# runs of each agent, their ratio (jkubelet / upstream; the row says whether lower or higher is
# better) and the machine's 1-minute load average at the start of each run, marked when above 2.
# How each row is measured: docs/performance.md, "Side by side with the upstream kubelet".
#
# The upstream kubelet is built once per machine from the control plane's source tree
# (kubelet-ref.sh); both agents run as bench-lib.sh's bench_agent_argv starts them (no QoS cgroups,
# cgroupfs, Docker's default bridge), as kubeadm configures a kubelet's API (the cluster's CA as
# client CA, the token webhook, authorization mode Webhook).
#
# Usage: deploy/scripts/bench-compare.sh
# Environment:
#   RUNS=5                 runs per row and agent (the table shows their median)
#   AGAINST=kubelet        what jkubelet is measured against: kubelet (the upstream kubelet), or
#                          jkubelet-off (jkubelet itself with its own reports off: the start-up
#                          timeline and the pull progress, issue 40's cost check), or
#                          jkubelet-base (another build of jkubelet: the checkout in JKUBELET_BASE,
#                          built there with `mvn -pl config,agent -DskipTests package`; e.g. the
#                          commit before a change, to see what the change costs)
#   ONLY=jkubelet|AGAINST  measure one agent; the table then also shows the other agent's rows
#                          from RESULTS, if that file holds them from an earlier run
#   ROWS=podstart,delete,logs,streams,scrapes,api,footprint,failures
#                          groups of rows to run (or single rows by id, e.g. logs.follow,exec);
#                          api: the node's own API requests per minute at idle and in a churn of
#                          BURST pods, from the control plane's audit log of the nodes' requests
#                          (k8s-up.sh's JKUBELET_AUDIT_NODES=1, set here for a control plane
#                          started here)
#   RESULTS=FILE           where the runs' figures go, one JSON line per row and agent (default a
#                          temporary file); a row measured again replaces the earlier one
#   PODS=110 BURST=30 LOG_MB=100 CP_MB=50 FOLLOW_LINES=30
#                          pods for the scrape, footprint and failure rows; pods created at once;
#                          the log's size; kubectl cp's file; lines per kubectl logs -f run
#   SETTLE=20 WARMUP=20 IDLE=30 API_IDLE=60
#                          seconds the PODS pods run before the scrapes, the idle API windows (and
#                          until the node created no event for 20 s) and each restart; seconds
#                          after a restart before the idle CPU window; that window's length; the
#                          length of each idle window of the api.idle row
#   QUIET_LOAD=1.0 QUIET_WAIT=300
#                          each group of rows starts once the 1-minute load average is at most
#                          QUIET_LOAD (waiting QUIET_WAIT s at most): the agent measured before
#                          leaves the machine busy with its pods' deletion for a minute or two
#   APISERVER_DOWN=60      seconds the API server is down (only this control plane's, by its PID)
#   DOCKER_RESTART=0       skip the row of the recovery from a restart of dockerd (the
#                          benchmark's own engine, bench-engine.sh, so no one else's containers
#                          stop with it)
#   KUBELET_PORT=12350     the agents' API port (one at a time)
#   KEEP_LOG=1             keep the agents' logs
#   JKUBELET_BENCH_FLAGS   more flags for this build of jkubelet (not the base's), e.g.
#                          "--kube-api-qps=50 --kube-api-burst=100", the base's defaults before
#                          they became v1.20's 5 and 10
# Control plane as k8s-up.sh: JKUBELET_BENCH_K8S_STATE (default /tmp/jkubelet-k8s-bench),
# JKUBELET_APISERVER_PORT, JKUBELET_ETCD_PORT. One that already ran there is left running.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh"
RUNS=${RUNS:-5}
ROWS=${ROWS:-podstart,delete,logs,streams,scrapes,api,footprint,failures}
PODS=${PODS:-110}; BURST=${BURST:-30}; LOG_MB=${LOG_MB:-100}; CP_MB=${CP_MB:-50}
APISERVER_DOWN=${APISERVER_DOWN:-60}
AGAINST=${AGAINST:-kubelet}
case $AGAINST in
  kubelet | jkubelet-off) ;;
  jkubelet-base)
    [ -x "${JKUBELET_BASE:-}/agent/target/jkubelet/bin/jkubelet" ] ||
      { echo "bench-compare: AGAINST=jkubelet-base needs JKUBELET_BASE, a checkout with agent/target/jkubelet built" >&2; exit 2; } ;;
  *) echo "bench-compare: AGAINST is kubelet, jkubelet-off or jkubelet-base, not $AGAINST" >&2; exit 2 ;;
esac
kinds=(jkubelet "$AGAINST")
case ${ONLY:-} in
  '') ;;
  jkubelet | "$AGAINST") kinds=("$ONLY") ;;
  *) echo "bench-compare: ONLY is jkubelet or $AGAINST, not $ONLY" >&2; exit 2 ;;
esac
command -v socat >/dev/null || {
  # The upstream kubelet's port-forward (dockershim) runs socat in the pod's network namespace.
  echo "bench-compare: installing socat" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends socat >&2
}

launcher=$bench_root/agent/target/jkubelet/bin/jkubelet
offline=-o
[ -n "${JKUBELET_MVN_ONLINE:-}" ] && offline=
if [ ! -x "$launcher" ] || [ -n "$(find "$bench_root/agent/src/main" "$bench_root/config/src/main" -newer "$launcher" -print -quit)" ]; then
  (cd "$bench_root" && nice mvn -B -ntp -q $offline -pl agent -am -DskipTests package)
fi
if [ "$AGAINST" = kubelet ]; then "$bench_root/deploy/scripts/kubelet-ref.sh" >/dev/null; fi

running "$state/apiserver.pid" || bench_k8s_started=1
kubeconfig=$(JKUBELET_AUDIT_NODES=1 "$bench_root/deploy/scripts/k8s-up.sh" "$state")
server=$(sed -n 's/.*server: "\([^"]*\)".*/\1/p' "$kubeconfig")
work=$(mktemp -d /tmp/bench-compare.XXXXXX)
# Both agents on one engine of the benchmark's own: an upstream kubelet kills the pods of any other
# kubelet on its engine, and the docker restart row stops every container of the engine.
engine=$("$bench_root/deploy/scripts/bench-engine.sh" "$work/engine")
export DOCKER_HOST=$engine
# The node's address: the engine's bridge (the upstream kubelet takes no loopback address, and the
# API server needs one to reach the kubelet for logs, exec and port-forward).
node_ip=${BENCH_ENGINE_NET:-10.248.0}.1
results=${RESULTS:-$work/results.jsonl}
touch "$results"
head -c "$((CP_MB * 1000 * 1000))" /dev/urandom > "$work/blob"
nodes=()

cleanup() {
  local rc=$? n ids pid
  pid=$(cat "$work/agent.pid" 2>/dev/null || true)
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && sleep 2 && kill -9 "$pid" 2>/dev/null || true
  for n in "${nodes[@]}"; do
    if [ -n "${KEEP_LOG:-}" ] && [ -f "$work/$n.log" ]; then
      cp "$work/$n.log" "${TMPDIR:-/tmp}/$n.log" && echo "bench-compare: kept ${TMPDIR:-/tmp}/$n.log" >&2
    fi
    kubectl_ delete namespace "$n" --wait=false >/dev/null 2>&1 || true
    # jkubelet labels its containers with its node; the upstream kubelet with the pod's namespace.
    ids=$(docker ps -aq --filter "label=io.jkubelet.node=$n"; docker ps -aq --filter "label=io.kubernetes.pod.namespace=$n")
    [ -n "$ids" ] && docker rm -f $ids >/dev/null 2>&1 || true
    kubectl_ delete node "$n" --wait=false >/dev/null 2>&1 || true
  done
  "$bench_root/deploy/scripts/bench-engine.sh" --down "$work/engine" || true
  grep -o " $work/[^ ]*" /proc/mounts | sort -r | xargs -r -n1 umount -l 2>/dev/null || true
  [ -n "${RESULTS:-}" ] || rm -f "$results"
  rm -rf "$work"
  [ -n "$bench_k8s_started" ] && "$bench_root/deploy/scripts/k8s-down.sh" "$state"
  return "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The rows to run, by id, from the groups and ids of ROWS.
rows=$(python3 - "$bench_root/deploy/scripts/bench-compare.py" "$ROWS" <<'PY'
import importlib.util, sys
spec = importlib.util.spec_from_file_location("bc", sys.argv[1]); bc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bc)
ids = [r[0] for r in bc.ROWS]
out = []
for w in sys.argv[2].split(","):
    got = bc.GROUPS.get(w) or ([w] if w in ids else None)
    if not got: sys.exit(f"bench-compare: no row or group {w!r}; groups: {', '.join(bc.GROUPS)}")
    out += got
print(",".join(out))
PY
)
params="{\"PODS\": $PODS, \"BURST\": $BURST, \"LOG_MB\": $LOG_MB, \"CP_MB\": $CP_MB, \"APISERVER_DOWN\": $APISERVER_DOWN}"
echo "bench-compare: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); RUNS=$RUNS, rows $rows" >&2

for kind in "${kinds[@]}"; do
  node=cmp-$kind-$$
  nodes+=("$node")
  nkc=$("$bench_root/deploy/scripts/k8s-node-kubeconfig.sh" "$state" "$node")
  bench_agent_argv "$kind" "$work/$kind" "$engine"
  argv=("${bench_argv[@]}" --kubeconfig "$nkc" --hostname-override "$node" --node-ip "$node_ip"
    --address "$node_ip" --root-dir "$work/$kind/root" --read-only-port 0 --port "${KUBELET_PORT:-12350}" --healthz-port 0
    --client-ca-file "$bench_pki/ca.crt" --anonymous-auth=false --authentication-token-webhook
    --authorization-mode Webhook --max-pods $((PODS + BURST + 20)) --pod-infra-container-image jkubelet/pause:3.2)
  python3 - "$work/$kind.json" "${argv[@]}" <<PY
import json, sys
json.dump({
    "kind": "$kind", "node": "$node", "namespace": "$node", "argv": sys.argv[2:],
    "agent_log": "$work/$node.log", "pid_file": "$work/agent.pid", "results": "$results",
    "server": "$server", "pki": "$bench_pki", "kubeconfig": "$kubeconfig", "kubectl": "$bench_kubectl",
    "state": "$state", "k8s_up": "$bench_root/deploy/scripts/k8s-up.sh",
    "engine": "$work/engine", "engine_sh": "$bench_root/deploy/scripts/bench-engine.sh",
    "docker_restart": "${DOCKER_RESTART:-1}" == "1",
    "kubelet_port": ${KUBELET_PORT:-12350}, "kubelet_addr": "$node_ip", "runs": $RUNS, "rows": "$rows".split(","),
    "pods": $PODS, "burst": $BURST, "log_mb": $LOG_MB, "cp_file": "$work/blob",
    "follow_lines": ${FOLLOW_LINES:-30}, "settle": ${SETTLE:-20}, "warmup": ${WARMUP:-20},
    "idle": ${IDLE:-30}, "api_idle": ${API_IDLE:-60}, "apiserver_down": $APISERVER_DOWN,
    "quiet_load": ${QUIET_LOAD:-1.0}, "quiet_wait": ${QUIET_WAIT:-300},
}, open(sys.argv[1], "w"))
PY
  # A row measured again replaces the earlier figures of the same agent.
  python3 - "$results" "$kind" "$rows" <<'PY'
import json, sys
path, kind, rows = sys.argv[1], sys.argv[2], set(sys.argv[3].split(","))
keep = [l for l in open(path) if l.strip() and not (json.loads(l)["kind"] == kind and json.loads(l)["row"] in rows)]
open(path, "w").writelines(keep)
PY
  python3 "$bench_root/deploy/scripts/bench-compare.py" measure "$work/$kind.json" ||
    { echo "bench-compare: $kind failed; the end of its log:" >&2; tail -n 30 "$work/$node.log" >&2; exit 1; }
  rm -f "$work/agent.pid"
  kubectl_ delete namespace "$node" --wait=false >/dev/null 2>&1 || true
  ids=$(docker ps -aq --filter "label=io.jkubelet.node=$node"; docker ps -aq --filter "label=io.kubernetes.pod.namespace=$node")
  [ -n "$ids" ] && docker rm -f $ids >/dev/null 2>&1 || true
done

python3 "$bench_root/deploy/scripts/bench-compare.py" table "$results" "$params" jkubelet "$AGAINST"
