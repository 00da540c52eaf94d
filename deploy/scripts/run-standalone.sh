#!/usr/bin/env bash
# Builds jkubelet if needed and runs it in standalone mode, in the foreground, on the example
# manifests (or the directory given as the first argument). Ctrl-C stops jkubelet; the pods keep
# running, and the next start adopts them. Remove a manifest to remove its pod. The node's name,
# root dir and cgroup driver are upstream's defaults (the kernel's host name, /var/lib/kubelet,
# Docker's driver) unless NODE_NAME or ROOT_DIR are set.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$root/deploy/scripts/build-env.sh"
manifests=${1:-$root/deploy/examples/manifests}
launcher=$root/agent/target/jkubelet/bin/jkubelet
jkubelet_built
echo "jkubelet: pods at http://localhost:${READ_ONLY_PORT:-10255}/pods, health at /healthz" >&2
exec "$launcher" run \
  --pod-manifest-path "$manifests" \
  ${NODE_NAME:+--hostname-override "$NODE_NAME"} \
  ${ROOT_DIR:+--root-dir "$ROOT_DIR"} \
  --read-only-port "${READ_ONLY_PORT:-10255}" \
  --pod-infra-container-image jkubelet/pause:3.2
