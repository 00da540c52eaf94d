#!/usr/bin/env bash
# Runs the whole test suite: unit tests, then the integration and end-to-end tests against the
# real Docker Engine and a real kube-apiserver with etcd (both started here when missing; the API
# server is built once per machine from Debian's source package), then a subset of upstream's node
# conformance suite (deploy/conformance/ci-focus.txt). Extra arguments go to Maven.
# JKUBELET_GUEST=1 adds the operator's-machine test bed (deploy/scripts/guest-scenarios.sh).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$root/deploy/scripts/build-env.sh"
# promtool and prometheus: the metrics tests check and scrape /metrics with them.
if ! command -v promtool >/dev/null || ! command -v prometheus >/dev/null; then
  echo "test: installing prometheus" >&2
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 && \
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus >&2
fi
# Debian's CNI plugins, iptables and iproute2: the network plugin tests put pods on bridges of
# their own with them.
if [ ! -x /usr/lib/cni/bridge ] || ! command -v iptables >/dev/null || ! command -v ip >/dev/null; then
  echo "test: installing containernetworking-plugins, iptables, iproute2" >&2
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 && \
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      containernetworking-plugins iptables iproute2 >&2
fi
# systemd-analyze and conntrack: the Debian package's test verifies its unit, and dpkg installs the
# package only with its dependencies present.
if ! command -v systemd-analyze >/dev/null || ! command -v conntrack >/dev/null; then
  echo "test: installing systemd, conntrack" >&2
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 && \
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends systemd conntrack >&2
fi
export JKUBELET_TEST_K8S_STATE=${JKUBELET_TEST_K8S_STATE:-/tmp/jkubelet-k8s-test}
JKUBELET_TEST_KUBECONFIG=$("$root/deploy/scripts/k8s-up.sh" "$JKUBELET_TEST_K8S_STATE")
export JKUBELET_TEST_KUBECONFIG
export JKUBELET_TEST_KUBECTL=${JKUBELET_K8S_CACHE:-/var/cache/jkubelet-k8s}/bin/kubectl
cd "$root"
status=0
mvn -B -ntp verify "$@" || status=$?
"$root/deploy/scripts/k8s-down.sh" "$JKUBELET_TEST_K8S_STATE"
# Then a fast subset of upstream's node conformance suite, on a fresh cluster of its own (the
# whole suite is deploy/scripts/conformance.sh). JKUBELET_CONFORMANCE=0 leaves it out.
if [ "${JKUBELET_CONFORMANCE:-1}" = 0 ]; then
  echo "test: conformance subset left out (JKUBELET_CONFORMANCE=0)" >&2
elif [ $status -ne 0 ]; then
  echo "test: conformance subset not run: the project's own tests failed" >&2
else
  "$root/deploy/scripts/conformance.sh" "$root/deploy/conformance/ci-focus.txt" || status=$?
fi
# The operator's-machine test bed (docs/testing.md): jkubelet's .deb on Debian 12 guests under
# QEMU, far longer than the rest (hours under TCG). Opt-in: JKUBELET_GUEST=1 runs every scenario;
# JKUBELET_GUEST_SCENARIOS names some.
if [ "${JKUBELET_GUEST:-0}" = 1 ]; then
  # shellcheck disable=SC2086 # the scenario names are words
  "$root/deploy/scripts/guest-scenarios.sh" ${JKUBELET_GUEST_SCENARIOS:-all} || status=$?
fi
exit $status
