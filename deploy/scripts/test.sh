#!/usr/bin/env bash
# Runs the whole test suite: unit tests, then the integration and end-to-end tests against the
# real Docker Engine (started here when none runs). Cluster-mode tests run against a real
# kube-apiserver: the one JKUBELET_TEST_KUBECONFIG points at, or else one that k8s-up.sh starts
# (and leaves running) in $JKUBELET_K8S_STATE, default /tmp/jkubelet-k8s. Extra arguments go to
# Maven.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$root/deploy/scripts/build-env.sh"
cd "$root"
if [ -z "${JKUBELET_TEST_KUBECONFIG:-}" ]; then
  JKUBELET_TEST_KUBECONFIG=$("$root/deploy/scripts/k8s-up.sh" "${JKUBELET_K8S_STATE:-/tmp/jkubelet-k8s}")
  export JKUBELET_TEST_KUBECONFIG
fi
exec mvn -B -ntp verify "$@"
