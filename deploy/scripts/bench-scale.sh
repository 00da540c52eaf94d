#!/usr/bin/env bash
# What a node costs the control plane at scale (issue 42): N hollow jkubelet nodes (`jkubelet
# hollow`, one JVM), then N upstream hollow nodes (kubemark v1.20.2 --morph=kubelet, one process
# each), one kind after the other against one control plane on this machine, and one table:
# nodes Ready; API requests per node per minute at idle by verb and resource
# (apiserver_request_total, less the control plane's own traffic in a window with no hollow node);
# watches held open per node; RSS and threads per hollow node; with CHURN=1 a Deployment of 10 x N
# pods created, scaled to 0 and back twice: pod start p50/p99 from creation to Running as a watch
# of the API sees it, requests per node per minute (the API server's, and the nodes' own from its
# audit log) and status writes per pod during the churn.
# The computation is bench-scale.py.
#
# Usage: [N=10 | N="10 50 100"] [IDLE=600] [SETTLE=120] [CHURN=1] [KINDS="jkubelet kubemark"]
#   deploy/scripts/bench-scale.sh   (KINDS may add kubemark-json: kubemark speaking JSON, not protobuf)
# Runs as root when kubemark is a kind: each kubemark process gets a /tmp of its own.
# Environment: JKUBELET_BENCH_K8S_STATE (the control plane's state dir, default
# /tmp/jkubelet-k8s-bench; started with k8s-up.sh if it does not run, and then stopped at the end),
# JKUBELET_APISERVER_PORT and JKUBELET_ETCD_PORT (read by k8s-up.sh), JKUBELET_MVN_ONLINE.
# Each node authenticates as system:node:<name> with a certificate of its own from
# k8s-node-kubeconfig.sh (the Node authorizer and NodeRestriction hold it to a node's rights).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$root/deploy/scripts/build-env.sh"
state=${JKUBELET_BENCH_K8S_STATE:-/tmp/jkubelet-k8s-bench}
cache=${JKUBELET_K8S_CACHE:-/var/cache/jkubelet-k8s}
started=''
running() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }
running "$state/apiserver.pid" || started=1
work=$(mktemp -d)
cleanup() {
  rm -rf "$work"
  [ -n "$started" ] && "$root/deploy/scripts/k8s-down.sh" "$state" || true
}
trap cleanup EXIT
# The nodes' own requests in the churn are counted from the API server's audit log of them (it
# applies when the API server starts here; one started before without it leaves those rows out).
kubeconfig=$(JKUBELET_AUDIT_NODES=1 "$root/deploy/scripts/k8s-up.sh" "$state")
kubemark=''
case " ${KINDS:-jkubelet kubemark} " in *" kubemark "* | *" kubemark-json "*) kubemark=$("$root/deploy/scripts/kubemark.sh") ;; esac
launcher=$root/agent/target/jkubelet/bin/jkubelet
if [ ! -x "$launcher" ]; then
  offline=-o
  [ -n "${JKUBELET_MVN_ONLINE:-}" ] && offline=
  (cd "$root" && nice mvn -B -ntp -q $offline -pl config,agent -DskipTests package)
fi
BENCH_KUBECTL=$cache/bin/kubectl BENCH_KUBECONFIG=$kubeconfig BENCH_STATE=$state \
  BENCH_JKUBELET=$launcher BENCH_KUBEMARK=$kubemark BENCH_WORK=$work \
  python3 "$root/deploy/scripts/bench-scale.py"
