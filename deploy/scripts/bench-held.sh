#!/usr/bin/env bash
# The kubelet API of a full node, build against build (issue 42). One jkubelet node joins the
# control plane that k8s-up.sh runs, its API configured as kubeadm configures a kubelet's (the
# cluster's CA as client CA, no anonymous requests, the token webhook, authorization mode Webhook),
# and PODS pods are bound to it. Then, ROUNDS times, for each CHECKOUT in turn: the node's jkubelet
# is restarted from that checkout's distribution (it adopts the pods), left SETTLE seconds, and each
# path of PATHS is fetched on CONNS new connections, each timed in parts: the TCP connect and TLS
# handshake, a first GET on it, a second GET on it (medians, in ms; the first two connections are
# left out). At the end the pods, their containers and the Node are removed.
#
# Usage: deploy/scripts/bench-held.sh CHECKOUT [CHECKOUT...]
#   CHECKOUT   a directory with a built distribution, agent/target/jkubelet (a git worktree of the
#              commit to measure, after `mvn -pl config,agent -DskipTests package`)
#   PODS=110 SETTLE=150 ROUNDS=2 CONNS=40 PATHS="/metrics /stats/summary /healthz"
#   JKUBELET_BENCH_K8S_STATE=/tmp/jkubelet-k8s-bench   the control plane's state directory (k8s-up.sh
#                                   starts it when it is not up; it is left running)
#   KUBELET_PORT=12450              the held node's kubelet API port, on 127.0.0.1
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
[ $# -ge 1 ] || { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
for c in "$@"; do
  [ -x "$c/agent/target/jkubelet/bin/jkubelet" ] || {
    echo "bench-held: no built distribution in $c (mvn -pl config,agent -DskipTests package)" >&2; exit 2; }
done
source "$root/deploy/scripts/build-env.sh"
pods=${PODS:-110} settle=${SETTLE:-150} rounds=${ROUNDS:-2} conns=${CONNS:-40}
paths=${PATHS:-/metrics /stats/summary /healthz}
state=${JKUBELET_BENCH_K8S_STATE:-/tmp/jkubelet-k8s-bench} port=${KUBELET_PORT:-12450}
kubeconfig=$("$root/deploy/scripts/k8s-up.sh" "$state")
k() { "${JKUBELET_K8S_CACHE:-/var/cache/jkubelet-k8s}/bin/kubectl" --kubeconfig "$kubeconfig" "$@"; }
node=held-$$ ns=bench-held-$$
nkc=$("$root/deploy/scripts/k8s-node-kubeconfig.sh" "$state" "$node")
work=$(mktemp -d)
mkdir -p "$work/manifests"
pid=''
stop_agent() {
  [ -z "$pid" ] || { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }
  pid=''
}
cleanup() {
  stop_agent
  k delete ns "$ns" --wait=false >/dev/null 2>&1 || true
  local ids
  ids=$(docker ps -aq --filter "label=io.jkubelet.node=$node")
  [ -z "$ids" ] || docker rm -f $ids >/dev/null
  k delete node "$node" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
start_agent() { # the node's jkubelet from checkout $1
  "$1/agent/target/jkubelet/bin/jkubelet" run --kubeconfig "$nkc" --hostname-override "$node" \
    --node-ip 127.0.0.1 --address 127.0.0.1 --port "$port" --read-only-port 0 --healthz-port 0 \
    --pod-manifest-path "$work/manifests" --root-dir "$work/root" --max-pods $((pods + 20)) \
    --client-ca-file "$state/pki/ca.crt" --anonymous-auth=false --authentication-token-webhook \
    --authorization-mode Webhook --pod-infra-container-image jkubelet/pause:3.2 \
    --fail-swap-on=false --cgroups-per-qos=false --enforce-node-allocatable= >>"$work/log" 2>&1 &
  pid=$!
}
running() { k -n "$ns" get pods --no-headers 2>/dev/null | grep -c ' Running ' || true; }
start_agent "$1"
until k get node "$node" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null | grep -q True; do
  kill -0 "$pid" 2>/dev/null || { echo "bench-held: jkubelet exited:" >&2; tail -n 20 "$work/log" >&2; exit 1; }
  sleep 1
done
k create ns "$ns" >/dev/null
until k -n "$ns" get sa default >/dev/null 2>&1; do sleep 1; done
for i in $(seq 1 "$pods"); do
  cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: p$i, namespace: $ns}
spec:
  nodeName: $node
  automountServiceAccountToken: false
  terminationGracePeriodSeconds: 1
  containers: [{name: c, image: jkubelet/busybox:1.35, command: [sleep, "100000"]}]
---
YAML
done | k apply -f - >/dev/null
until [ "$(running)" -ge "$pods" ]; do sleep 2; done
echo "bench-held: $pods pods Running on $node; each build restarted in turn, ${settle} s to settle"
for round in $(seq 1 "$rounds"); do
  for c in "$@"; do
    stop_agent
    start_agent "$c"
    sleep "$settle"
    kill -0 "$pid" 2>/dev/null || { echo "bench-held: jkubelet of $c exited:" >&2; tail -n 20 "$work/log" >&2; exit 1; }
    python3 - "$port" "$state/pki" "$conns" "$round" "$c" $paths <<'PY'
import http.client, ssl, statistics, sys, time
port, pki, conns, rnd, build, paths = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6:]
ctx = ssl._create_unverified_context()
ctx.load_cert_chain(pki + "/admin.crt", pki + "/admin.key")
for path in paths:
    parts = []
    for _ in range(conns + 2):
        c = http.client.HTTPSConnection("127.0.0.1", port, context=ctx, timeout=60)
        t0 = time.monotonic(); c.connect(); t1 = time.monotonic()
        ts = []
        for _ in range(2):
            c.request("GET", path)
            r = c.getresponse(); body = r.read(); ts.append(time.monotonic())
            if r.status != 200:
                sys.exit(f"bench-held: GET {path}: {r.status} {body[:200]!r}")
        c.close()
        parts.append(((t1 - t0) * 1000, (ts[0] - t1) * 1000, (ts[1] - ts[0]) * 1000))
    hs, first, second = (statistics.median(p[i] for p in parts[2:]) for i in range(3))
    print(f"round {rnd}  {build}  {path} ({len(body) // 1024} KiB): handshake {hs:.2f}, first GET {first:.2f}, second GET {second:.2f} ms")
PY
  done
done
