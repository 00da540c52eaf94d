#!/usr/bin/env bash
# A kubeconfig for a node of the control plane that k8s-up.sh runs in STATE_DIR, as a kubelet's
# bootstrap would leave it: a client certificate for CN system:node:NODE_NAME, O system:nodes,
# signed by the test CA, so that the Node authorizer and NodeRestriction treat its holder as that
# node. Idempotent: the certificate is made once per node name.
#
# Usage: deploy/scripts/k8s-node-kubeconfig.sh STATE_DIR NODE_NAME
# Prints the kubeconfig's path on stdout.
set -euo pipefail
STATE=${1:?usage: k8s-node-kubeconfig.sh STATE_DIR NODE_NAME}
NODE=${2:?usage: k8s-node-kubeconfig.sh STATE_DIR NODE_NAME}
case "$NODE" in
  *[!a-z0-9.-]* | "") echo "k8s-node-kubeconfig: not a node name: $NODE" >&2; exit 2 ;;
esac
source "$(dirname "${BASH_SOURCE[0]}")/k8s-lib.sh"
PKI=$STATE/pki
if [ ! -f "$PKI/ca.key" ] || [ ! -f "$STATE/admin.kubeconfig" ]; then
  echo "k8s-node-kubeconfig: no control plane in $STATE; start one with k8s-up.sh $STATE" >&2
  exit 1
fi
# The same server as the admin's.
server=$(sed -n 's/.*server: "\([^"]*\)".*/\1/p' "$STATE/admin.kubeconfig")
mkdir -p "$STATE/nodes"
client_cert "$PKI" "node-$NODE" "/O=system:nodes/CN=system:node:$NODE"
KC=$STATE/nodes/$NODE.kubeconfig
write_kubeconfig "$KC" "$server" "$PKI" "node-$NODE"
echo "$KC"
