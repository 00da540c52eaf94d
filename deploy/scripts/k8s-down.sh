#!/usr/bin/env bash
# Stops the control plane that k8s-up.sh started in STATE_DIR (by the PIDs it recorded): the
# scheduler and the controller manager first, then the API server, then etcd. One that has not
# ended 15 s after SIGTERM gets SIGKILL, so that none outlives its state directory.
set -euo pipefail
STATE=${1:-/tmp/jkubelet-k8s}
source "$(dirname "${BASH_SOURCE[0]}")/k8s-lib.sh"
for name in scheduler controller-manager apiserver etcd; do
  if [ -f "$STATE/$name.pid" ]; then
    pid=$(cat "$STATE/$name.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 30); do running "$STATE/$name.pid" || break; sleep 0.5; done
    if running "$STATE/$name.pid"; then
      echo "k8s-down: $name ($pid) still running 15 s after SIGTERM; sending SIGKILL" >&2
      kill -9 "$pid" 2>/dev/null || true
      for _ in $(seq 1 10); do running "$STATE/$name.pid" || break; sleep 0.5; done
    fi
    rm -f "$STATE/$name.pid"
  fi
done
