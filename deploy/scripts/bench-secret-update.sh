#!/usr/bin/env bash
# Secret update benchmark (issue 10: a secret update reaches the files of 100 pods that mount it
# within 2 s of the watch event). A real control plane and jkubelet in cluster mode, as in
# bench-cluster.sh; SecretUpdateBench, as the admin, starts PODS pods that each mount one secret,
# then, ROUNDS times, updates the secret and times from the moment its own watch on the secret sees
# the new resourceVersion until each pod's file shows the new value. The files are read on the host
# under jkubelet's --root-dir (<root>/pods/<uid>/volumes/kubernetes.io~secret/<volume>/<key>, the
# tmpfs that is bind-mounted into the container) every 5 ms, which costs the engine nothing. Prints
# p50, p90 and max across pods for each round, and the worst max over the rounds.
#
# Usage: deploy/scripts/bench-secret-update.sh [PODS] [ROUNDS]     (defaults: 100 5)
# Environment: see deploy/scripts/bench-lib.sh (state dir, ports).
set -euo pipefail
PODS=${1:-100}; ROUNDS=${2:-5}
source "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh"
bench_build
bench_cluster_up bench-secret
bench_java SecretUpdateBench "$kubeconfig" "$node" "$root_dir" "$PODS" "$ROUNDS"
