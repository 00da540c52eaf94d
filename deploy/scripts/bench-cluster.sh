#!/usr/bin/env bash
# Cluster-mode pod startup benchmark: a real control plane (deploy/scripts/k8s-up.sh), jkubelet
# with --kubeconfig of its node's identity (deploy/scripts/k8s-node-kubeconfig.sh), and
# ClusterStartupBench, as the admin, which times a single pod (median of RUNS) and PODS
# pods created at once (p50, p99) from the create request until a watch shows every container
# running, beside Docker alone starting the same containers in the same run.
#
# Usage: deploy/scripts/bench-cluster.sh [RUNS] [PODS]     (defaults: 10 30)
set -euo pipefail
RUNS=${1:-10}; PODS=${2:-30}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$root/deploy/scripts/build-env.sh"
(cd "$root" && mvn -B -ntp -q -DskipTests package test-compile)
state=${JKUBELET_BENCH_K8S_STATE:-/tmp/jkubelet-k8s-bench}
kubeconfig=$("$root/deploy/scripts/k8s-up.sh" "$state")
node=bench-$$
node_kubeconfig=$("$root/deploy/scripts/k8s-node-kubeconfig.sh" "$state" "$node")
work=$(mktemp -d)
mkdir -p "$work/manifests"
"$root/agent/target/jkubelet/bin/jkubelet" run --kubeconfig "$node_kubeconfig" --hostname-override "$node" \
  --node-ip 127.0.0.1 --pod-manifest-path "$work/manifests" --root-dir "$work/root" \
  --read-only-port 0 --port "${KUBELET_PORT:-10250}" --healthz-port 0 --max-pods 200 > "$work/jkubelet.log" 2>&1 &
jk=$!
cleanup() {
  kill "$jk" 2>/dev/null && wait "$jk" 2>/dev/null || true
  ids=$(docker ps -aq --filter "label=io.jkubelet.node=$node")
  [ -n "$ids" ] && docker rm -f $ids >/dev/null 2>&1 || true
  "${JKUBELET_K8S_CACHE:-/var/cache/jkubelet-k8s}/bin/kubectl" --kubeconfig "$kubeconfig" delete node "$node" --wait=false >/dev/null 2>&1 || true
  "$root/deploy/scripts/k8s-down.sh" "$state"
  rm -rf "$work"
}
trap cleanup EXIT
kubectl_() { "${JKUBELET_K8S_CACHE:-/var/cache/jkubelet-k8s}/bin/kubectl" --kubeconfig "$kubeconfig" "$@"; }
until kubectl_ get node "$node" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null | grep -q True; do sleep 0.5; done
cp=$(cd "$root/agent" && mvn -q -o dependency:build-classpath -Dmdep.outputFile=/dev/stdout -Dmdep.includeScope=test 2>/dev/null)
java -cp "$root/agent/target/test-classes:$root/agent/target/classes:$cp" \
  io.jkubelet.agent.bench.ClusterStartupBench "$kubeconfig" "$node" "$RUNS" "$PODS"
