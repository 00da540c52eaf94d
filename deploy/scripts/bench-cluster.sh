#!/usr/bin/env bash
# Cluster-mode pod startup benchmark: a real control plane (deploy/scripts/k8s-up.sh), jkubelet
# with --kubeconfig of its node's identity (deploy/scripts/k8s-node-kubeconfig.sh), and
# ClusterStartupBench, as the admin, which times pods from the create request until a watch shows
# every container running:
#   - a single plain pod (median of RUNS), beside Docker alone starting the same containers;
#   - a single pod with a service-account token volume, a configMap volume and an env var from a
#     secret (median and p90 of RUNS, interleaved with the plain pod's runs), beside the plain
#     pod: the goal is within 0.2 s of it (issue 10);
#   - PODS plain pods created at once (p50, p99), beside Docker alone.
#
# Usage: deploy/scripts/bench-cluster.sh [RUNS] [PODS]     (defaults: 10 30)
# Environment: see deploy/scripts/bench-lib.sh (state dir, ports).
set -euo pipefail
RUNS=${1:-10}; PODS=${2:-30}
source "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh"
bench_build
bench_cluster_up bench
bench_java ClusterStartupBench "$kubeconfig" "$node" "$RUNS" "$PODS"
