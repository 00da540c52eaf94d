#!/usr/bin/env bash
# Installs the built distribution (agent/target/jkubelet) as a systemd service:
# /opt/jkubelet, /etc/jkubelet/config.yaml, /etc/jkubelet/manifests, jkubelet.service.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dist=$root/agent/target/jkubelet
[ -x "$dist/bin/jkubelet" ] || { echo "build first: mvn -DskipTests package" >&2; exit 1; }
install -d /opt/jkubelet /etc/jkubelet/manifests
cp -r "$dist/." /opt/jkubelet/
cp "$root/README.md" /opt/jkubelet/
[ -f /etc/jkubelet/config.yaml ] || install -m 0644 "$root/deploy/examples/config.yaml" /etc/jkubelet/config.yaml
install -m 0644 "$root/deploy/systemd/jkubelet.service" /etc/systemd/system/jkubelet.service
echo "installed; now: systemctl daemon-reload && systemctl enable --now jkubelet"
