#!/usr/bin/env bash
# Stops the server that search-up.sh started in STATE_DIR, by its PID (SIGTERM, then SIGKILL after
# 30 s). Keeps the data directory; remove STATE_DIR to forget it.
#
# Usage: deploy/scripts/search-down.sh STATE_DIR
set -euo pipefail
state=$1
[ -f "$state/pid" ] || exit 0
pid=$(cat "$state/pid")
kill "$pid" 2>/dev/null || true
for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
kill -9 "$pid" 2>/dev/null || true
rm -f "$state/pid"
