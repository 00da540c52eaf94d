#!/usr/bin/env bash
# A Docker engine of a benchmark's own: a dockerd with its own root, exec root, socket and
# containerd under DIR, its default network a bridge of its own (BENCH_ENGINE_BRIDGE, default
# jkcmp0, at BENCH_ENGINE_NET.1/24, default 10.248.0; no iptables rules of Docker's), with the
# images the benchmarks' pods use (jkubelet/busybox:1.35, jkubelet/pause:3.2) loaded from the
# machine's engine. Prints its endpoint (unix://DIR/docker.sock). Idempotent: an engine that runs
# in DIR is kept.
#
# Why: an upstream kubelet takes every Kubernetes container of its engine for its own, and kills
# the pods that are not bound to its node, so it must never run on an engine that others use (as
# bed-up.sh's upstream nodes, each on an engine of its own). Also, a restart of this engine stops
# nobody else's containers.
#
# Usage: deploy/scripts/bench-engine.sh DIR          starts it (or finds it running)
#        deploy/scripts/bench-engine.sh --stop DIR   stops dockerd (its containers stop with it)
#        deploy/scripts/bench-engine.sh --down DIR   removes its containers, stops it, removes DIR
#                                                    and the bridge
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/k8s-lib.sh"
mode=up
case ${1:-} in --stop | --down) mode=${1#--}; shift ;; esac
dir=${1:?usage: bench-engine.sh [--stop|--down] DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
sock=$dir/docker.sock
br=${BENCH_ENGINE_BRIDGE:-jkcmp0}
net=${BENCH_ENGINE_NET:-10.248.0}

stop() {
  local pid
  pid=$(cat "$dir/dockerd.pid" 2>/dev/null) || return 0
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 300); do running "$dir/dockerd.pid" || break; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$dir/dockerd.pid"
}

case $mode in
  stop) stop; exit 0 ;;
  down)
    if running "$dir/dockerd.pid"; then
      ids=$(docker -H "unix://$sock" ps -aq)
      [ -z "$ids" ] || docker -H "unix://$sock" rm -f $ids >/dev/null 2>&1 || true
    fi
    stop
    grep -o " $dir/[^ ]*" /proc/mounts | sort -r | xargs -r -n1 umount -l 2>/dev/null || true
    rm -rf "$dir"
    ip link del "$br" 2>/dev/null || true
    exit 0 ;;
esac

if ! running "$dir/dockerd.pid"; then
  ip link show "$br" >/dev/null 2>&1 || ip link add "$br" type bridge
  ip addr replace "$net.1/24" dev "$br"
  ip link set "$br" up
  setsid dockerd --data-root "$dir/docker" --exec-root "$dir/run" --pidfile "$dir/run.pid" \
    --host "unix://$sock" --bridge="$br" --iptables=false --ip-masq=false --ip-forward=false \
    >>"$dir/dockerd.log" 2>&1 </dev/null &
  echo $! >"$dir/dockerd.pid"
  for _ in $(seq 1 120); do docker -H "unix://$sock" info >/dev/null 2>&1 && break; sleep 0.5; done
  docker -H "unix://$sock" info >/dev/null 2>&1 ||
    { echo "bench-engine: dockerd in $dir did not answer; see $dir/dockerd.log" >&2; tail -n 20 "$dir/dockerd.log" >&2; exit 1; }
fi
for image in jkubelet/busybox:1.35 jkubelet/pause:3.2; do
  docker -H "unix://$sock" image inspect "$image" >/dev/null 2>&1 || docker save "$image" | docker -H "unix://$sock" load >/dev/null
done
echo "unix://$sock"
