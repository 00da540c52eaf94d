#!/usr/bin/env bash
# Stops what bed-up.sh started in STATE_DIR: the nodes' pods are deleted first and each kubelet
# tears its pods' networks down, then the kubelets (and their own dockerds) and kube-proxy stop (by their recorded PIDs),
# their Nodes and whatever containers remain go, kube-proxy's rules and the portmap rules of the
# bed's networks are cleaned up, and the bridges and the bed's interface are removed. The control plane keeps running (k8s-down.sh stops it).
#
# Usage: deploy/scripts/bed-down.sh STATE_DIR
# Environment: as bed-up.sh (JKUBELET_BED_BRIDGE, JKUBELET_K8S_CACHE).
set -uo pipefail
scripts=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$scripts/k8s-lib.sh"
STATE=${1:?usage: bed-down.sh STATE_DIR}
CACHE=${JKUBELET_K8S_CACHE:-/var/cache/jkubelet-k8s}
BIN=$CACHE/bin
BRIDGE=${JKUBELET_BED_BRIDGE:-jkbed}
BED=$STATE/bed
KC=$STATE/admin.kubeconfig
kubectl() { "$BIN/kubectl" --kubeconfig "$KC" --request-timeout=10s "$@"; }
stop_pid() { # PIDFILE
  local pid
  pid=$(cat "$1" 2>/dev/null) || return 0
  if running "$1"; then
    kill "$pid" 2>/dev/null
    for _ in $(seq 1 60); do running "$1" || break; sleep 0.5; done
    running "$1" && kill -9 "$pid" 2>/dev/null
  fi
  rm -f "$1"
}
[ -d "$BED" ] || exit 0
nodes=()
for d in "$BED"/*/; do [ -f "$d/jkubelet.pid" ] && nodes+=("$(basename "$d")"); done
for node in "${nodes[@]}"; do
  kubectl delete pods --all-namespaces --field-selector "spec.nodeName=$node" --wait=false >/dev/null 2>&1
done
for node in "${nodes[@]}"; do
  for _ in $(seq 1 60); do
    if [ -f "$BED/$node/dockerd.pid" ]; then
      [ -z "$(docker -H "unix://$BED/$node/docker.sock" ps -q --filter label=io.kubernetes.pod.uid 2>/dev/null)" ] && break
    else
      [ -z "$(docker ps -q --filter "label=io.jkubelet.node=$node")" ] && break
    fi
    running "$BED/$node/jkubelet.pid" || break
    sleep 1
  done
  stop_pid "$BED/$node/jkubelet.pid"
  ids=$(docker ps -aq --filter "label=io.jkubelet.node=$node")
  [ -z "$ids" ] || docker rm -f $ids >/dev/null 2>&1
  if [ -f "$BED/$node/dockerd.pid" ]; then # an upstream kubelet's engine of its own
    engine=(docker -H "unix://$BED/$node/docker.sock")
    ids=$("${engine[@]}" ps -aq 2>/dev/null)
    [ -z "$ids" ] || "${engine[@]}" rm -f $ids >/dev/null 2>&1
    stop_pid "$BED/$node/dockerd.pid"
  fi
  kubectl delete node "$node" --wait=false >/dev/null 2>&1
  awk -v root="$BED/$node/" 'index($2, root) == 1 { print $2 }' /proc/mounts | sort -ru |
    while read -r m; do umount "$m" 2>/dev/null; done
done
stop_pid "$BED/kube-proxy.pid"
"$BIN/kube-proxy" --cleanup >/dev/null 2>&1
for l in $(ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -E "^${BRIDGE}d?[0-9]+$"); do
  remove_portmap_rules "$l" # what a pod not torn down left (each network is named as its bridge)
  ip link del "$l" 2>/dev/null
done
exit 0
