#!/usr/bin/env bash
# Runs upstream's node conformance suite (e2e.test v1.20.2, the [NodeConformance] specs) against
# jkubelet: brings up the real test cluster (k8s-up.sh) in its own state directory, starts the
# packaged jkubelet as its only node with that node's identity (k8s-node-kubeconfig.sh), runs the
# suite with ginkgo, prints one line per spec and a count, and stops jkubelet and the cluster.
#
# e2e.test, ginkgo, a static agnhost and nonewprivs' nnp are built once per machine from the same
# Debian `kubernetes` source tree and into the same cache as the control plane; the images the
# suite names are built locally by e2e-images.sh (no registry is needed).
#
# Usage: deploy/scripts/conformance.sh [FOCUS]
#        deploy/scripts/conformance.sh --full [NODES [FILE]]
#   FOCUS      ginkgo focus regex; default '\[NodeConformance\]'. A file name instead (e.g.
#              deploy/conformance/ci-focus.txt) runs the specs it lists, one full name a line.
#   --full     the whole [Conformance] suite, as the certified-conformance run: on a cluster of
#              NODES jkubelet nodes (default 2) brought up by bed-up.sh, each with its own CNI
#              network, kube-proxy on the host, the API server reachable from pods; the parallel
#              specs first, then the [Serial] ones one at a time; --num-nodes=NODES. Skipped: the
#              specs of deploy/conformance/full-skip.txt, with their reasons (no cluster DNS).
#              With REFERENCE=1, the nodes are upstream kubelets v1.20.2 on the same bed, each on
#              a dockerd of its own (bed-up.sh's JKUBELET_BED_KUBELET=upstream), for the figure
#              beside jkubelet's; the reports go to REPORT-reference. FILE (e.g. a run's failures)
#              runs only the specs it lists, one full name a line, each in its part.
# Skipped: '\[Slow\]|\[Serial\]|\[Disruptive\]' and the specs listed in
# deploy/conformance/skip.txt (those that need a registry on the internet), plus
# JKUBELET_CONFORMANCE_SKIP (a regex) if set.
# Environment: JKUBELET_CONFORMANCE_STATE (control plane's state dir, default
#              /tmp/jkubelet-conformance; wiped at start), JKUBELET_CONFORMANCE_NODES (ginkgo's
#              parallel processes, default 4), JKUBELET_CONFORMANCE_REPORT (default
#              target/conformance), JKUBELET_APISERVER_PORT / JKUBELET_ETCD_PORT (as k8s-up.sh),
#              JKUBELET_K8S_CACHE (build cache).
# Writes the JUnit reports (junit_*.xml), the suite's log (e2e.log), jkubelet's log and the list
# of results (results.txt) to the report directory. Exits 1 if any spec failed.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
scripts=$root/deploy/scripts
source "$scripts/build-env.sh"
source "$scripts/k8s-lib.sh"
CACHE=${JKUBELET_K8S_CACHE:-/var/cache/jkubelet-k8s}
BIN=$CACHE/bin
STATE=${JKUBELET_CONFORMANCE_STATE:-/tmp/jkubelet-conformance}
REPORT=${JKUBELET_CONFORMANCE_REPORT:-$root/target/conformance}
if [ -n "${REFERENCE:-}" ]; then
  REPORT=$REPORT-reference
  export JKUBELET_BED_KUBELET=upstream
fi
NODES=${JKUBELET_CONFORMANCE_NODES:-4}
NODE=jkubelet-conformance
FULL=0
NUM_NODES=1
RERUN=
if [ "${1:-}" = --full ]; then
  FULL=1
  NUM_NODES=${2:-2}
  RERUN=${3:-}
  set -- '\[Conformance\]'
fi
FOCUS=${1:-'\[NodeConformance\]'}

say() { echo "conformance: $*" >&2; }

# A regex that matches exactly the spec names listed in FILE (one a line; '#' starts a comment,
# which for skip.txt gives the reason). Empty if FILE lists none.
names_regex() {
  sed -e 's/[[:space:]]#.*$//' -e '/^[[:space:]]*#/d' -e '/^[[:space:]]*$/d' "$1" |
    sed -e 's/[][\\.*^$(){}?+|/]/\\&/g' | paste -sd '|' -
}
if [ -f "$FOCUS" ]; then
  FOCUS_FILE=$FOCUS
  FOCUS=$(names_regex "$FOCUS_FILE")
  if [ -z "$FOCUS" ]; then
    say "$FOCUS_FILE lists no spec; nothing to run"
    exit 0
  fi
fi
# NOT_RUN: what no mode runs here (the registry on the internet, the environment's gaps, the
# user's own); the modes add what they leave for later.
NOT_RUN=$(names_regex "$root/deploy/conformance/skip.txt")
if [ "$FULL" = 1 ]; then
  env_only=$(names_regex "$root/deploy/conformance/full-skip.txt")
  [ -z "$env_only" ] || NOT_RUN="${NOT_RUN:+$NOT_RUN|}$env_only"
fi
[ -z "${JKUBELET_CONFORMANCE_SKIP:-}" ] || NOT_RUN="${NOT_RUN:+$NOT_RUN|}$JKUBELET_CONFORMANCE_SKIP"
SERIAL_FOCUS='\[Serial\].*\[Conformance\]'
if [ -n "$RERUN" ]; then
  [ -f "$RERUN" ] || { say "$RERUN: no such file (--full NODES FILE takes a list of specs)"; exit 2; }
  # Each listed spec in its part: the [Serial] ones one at a time, the others in parallel.
  FOCUS=$(names_regex <(grep -v '\[Serial\]' "$RERUN" || true))
  SERIAL_FOCUS=$(names_regex <(grep '\[Serial\]' "$RERUN" || true))
  if [ -z "$FOCUS$SERIAL_FOCUS" ]; then
    say "$RERUN lists no spec; nothing to run"
    exit 0
  fi
fi
if [ "$FULL" = 1 ]; then
  SKIP="\[Serial\]|\[Disruptive\]${NOT_RUN:+|$NOT_RUN}"
  # The certified run leaves nothing out: the two [Disruptive] [Conformance] specs (the taint
  # manager's, [Serial] too) only taint a node, and run in the serial part.
  SERIAL_SKIP=${NOT_RUN:-'^$'}
else
  SKIP="\[Slow\]|\[Serial\]|\[Disruptive\]${NOT_RUN:+|$NOT_RUN}"
fi

# e2e.test, ginkgo, agnhost, nnp and sample-apiserver into the cache's bin/, built from the source tree that
# k8s-up.sh fetched, under the cache's build lock (one Go build per machine at a time).
build_suite() {
  local missing=()
  for b in e2e.test ginkgo agnhost nnp sample-apiserver; do [ -x "$BIN/$b" ] || missing+=("$b"); done
  [ ${#missing[@]} -gt 0 ] || return 0
  exec 9>"$CACHE/build.lock"
  flock 9
  (
    export GOPATH=$CACHE/src/gopath GOCACHE=$CACHE/gocache GO111MODULE=off HOME=$CACHE/home
    cd "$GOPATH/src/k8s.io/kubernetes"
    gobuild() { # NAME PACKAGE: a static, stripped binary into the cache
      [ -x "$BIN/$1" ] && return 0
      say "building $1 (static)"
      CGO_ENABLED=0 nice go build -ldflags '-s -w' -o "$BIN/$1.tmp" "$2" >&2
      mv "$BIN/$1.tmp" "$BIN/$1"
    }
    if [ ! -x "$BIN/e2e.test" ]; then
      if [ ! -x _output/bin/e2e.test ]; then
        say "building e2e.test v1.20.2 into $CACHE (once per machine; 20 minutes or more on 2 cores)"
        nice make WHAT=test/e2e/e2e.test >&2
      fi
      cp _output/bin/e2e.test "$BIN/e2e.test.tmp"
      mv "$BIN/e2e.test.tmp" "$BIN/e2e.test"
    fi
    gobuild ginkgo ./vendor/github.com/onsi/ginkgo/ginkgo
    # make's agnhost links against libc, which the libc-less image lacks; built static instead.
    gobuild agnhost ./test/images/agnhost
    gobuild nnp ./test/images/nonewprivs
    # The Aggregator spec's wardle API server (test/images/sample-apiserver packages this binary).
    gobuild sample-apiserver ./vendor/k8s.io/sample-apiserver
  )
  exec 9>&-
}

jkubelet_pid=''
BED_NET=${JKUBELET_BED_NODE_NET:-10.250.0}
export JKUBELET_BED_PREFIX=$NODE JKUBELET_BED_NODE_NET=$BED_NET
cleanup() {
  if [ "$FULL" = 1 ]; then
    "$scripts/bed-down.sh" "$STATE"
  elif [ -n "$jkubelet_pid" ] && kill -0 "$jkubelet_pid" 2>/dev/null; then
    say "stopping jkubelet (pid $jkubelet_pid)"
    kill "$jkubelet_pid" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$jkubelet_pid" 2>/dev/null || break; sleep 0.5; done
    kill -9 "$jkubelet_pid" 2>/dev/null || true
  fi
  remove_node_containers
  unmount_pod_volumes
  "$scripts/k8s-down.sh" "$STATE"
}
# A stopped jkubelet leaves its pods' tmpfs volumes mounted, as upstream's kubelet does; the
# node is gone with the run, so they go too, and so does the root dir's bind onto itself (made
# rshared for mountPropagation), in rounds, since unmounting it uncovers what it hid.
unmount_pod_volumes() {
  local round
  for round in 1 2 3; do
    awk -v root="$STATE/jkubelet/root" 'index($2, root) == 1 { print $2 }' /proc/mounts |
      sort -ru | while read -r m; do umount "$m" 2>/dev/null || true; done
  done
}
remove_node_containers() {
  local ids
  ids=$(docker ps -aq --filter "label=io.jkubelet.node=$NODE")
  [ -z "$ids" ] || docker rm -f $ids >/dev/null 2>&1 || true
}

# A fresh control plane: whatever an earlier run left in STATE is stopped and its etcd wiped.
[ "$FULL" = 0 ] || "$scripts/bed-down.sh" "$STATE"
"$scripts/k8s-down.sh" "$STATE"
rm -rf "$STATE/etcd"
remove_node_containers
unmount_pod_volumes
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
if [ "$FULL" = 1 ]; then
  # Pods reach the API server through the `kubernetes` Service: it listens on an address of the
  # bed's interface (bed-up.sh adds the nodes' addresses beside it), in a state dir of its own,
  # since its certificate names that address.
  rm -rf "$STATE/pki"
  link=${JKUBELET_BED_BRIDGE:-jkbed}0
  ip link show "$link" >/dev/null 2>&1 || ip link add "$link" type bridge
  ip link set "$link" up
  ip addr replace "$BED_NET.1/32" dev "$link"
  export JKUBELET_APISERVER_ADDRESS=$BED_NET.1
fi
# First the cluster: on a fresh machine, k8s-up.sh fetches the source tree the suite builds from.
KC=$("$scripts/k8s-up.sh" "$STATE")
build_suite
"$scripts/e2e-images.sh"

launcher=$root/agent/target/jkubelet/bin/jkubelet
# Packaged again when a source is newer than the jar (the launcher script keeps its old time).
jar=$root/agent/target/jkubelet/lib/jkubelet-agent.jar
if [ ! -x "$launcher" ] || [ ! -f "$jar" ] ||
  [ -n "$(find "$root/agent/src/main" "$root/config/src/main" -newer "$jar" -print -quit 2>/dev/null)" ]; then
  say "packaging jkubelet"
  (cd "$root" && mvn -B -ntp -q -DskipTests package)
fi
rm -rf "$REPORT"
mkdir -p "$REPORT" "$STATE/jkubelet/manifests"
kubectl() { "$BIN/kubectl" --kubeconfig "$KC" "$@"; }
if [ "$FULL" = 1 ]; then
  say "starting $NUM_NODES jkubelet nodes (logs: $STATE/bed/*/jkubelet.log)"
  JKUBELET_BED_FLAGS="--pod-infra-container-image k8s.gcr.io/pause:3.2" \
    "$scripts/bed-up.sh" "$STATE" "$NUM_NODES" >/dev/null
else
  node_kc=$("$scripts/k8s-node-kubeconfig.sh" "$STATE" "$NODE")
  say "starting jkubelet as node $NODE (log: $REPORT/jkubelet.log)"
  setsid "$launcher" run --kubeconfig "$node_kc" --hostname-override "$NODE" --node-ip 127.0.0.1 \
    --pod-manifest-path "$STATE/jkubelet/manifests" --root-dir "$STATE/jkubelet/root" \
    --read-only-port 0 --pod-infra-container-image k8s.gcr.io/pause:3.2 \
    --client-ca-file "$STATE/pki/ca.crt" --anonymous-auth=false --authentication-token-webhook \
    --authorization-mode Webhook --cluster-domain cluster.local --fail-swap-on=false \
    >"$REPORT/jkubelet.log" 2>&1 </dev/null &
  jkubelet_pid=$!
  for _ in $(seq 1 60); do
    kubectl get node "$NODE" --no-headers 2>/dev/null | grep -q ' Ready ' && break
    kill -0 "$jkubelet_pid" 2>/dev/null || { say "jkubelet exited; see $REPORT/jkubelet.log"; tail -n 20 "$REPORT/jkubelet.log" >&2; exit 1; }
    sleep 1
  done
  kubectl get node "$NODE" --no-headers 2>/dev/null | grep -q ' Ready ' ||
    { say "node $NODE not Ready after 60 s; see $REPORT/jkubelet.log"; exit 1; }
fi

started=$(date +%s)
suite_rc=0
# run_suite PROCS FOCUS SKIP DIR: one ginkgo run into REPORT/DIR. No cloud: the local provider, no
# log dump over SSH, the kubectl that matches the API server. --ginkgo.* flags are the CLI's own
# (-focus/-skip) so that it schedules only what runs.
run_suite() {
  mkdir -p "$REPORT/$4"
  say "running e2e.test with $1 ginkgo processes (log: $REPORT/$4/e2e.log)"
  "$BIN/ginkgo" -nodes="$1" -noColor -focus="$2" -skip="$3" "$BIN/e2e.test" -- \
    --provider=local --kubeconfig="$KC" --kubectl-path="$BIN/kubectl" \
    --num-nodes="$NUM_NODES" --allowed-not-ready-nodes=0 --node-os-distro=debian \
    --disable-log-dump --report-dir="$REPORT/$4" --e2e-output-dir="$REPORT/$4" \
    --repo-root="$CACHE/src/kubernetes-1.20.2" \
    >"$REPORT/$4/e2e.log" 2>&1 || suite_rc=$?
}
if [ "$FULL" = 1 ]; then
  # As the certified-conformance run: the parallel specs, then the [Serial] ones one at a time.
  [ -z "$FOCUS" ] || run_suite "$NODES" "$FOCUS" "$SKIP" parallel
  [ -z "$SERIAL_FOCUS" ] || run_suite 1 "$SERIAL_FOCUS" "$SERIAL_SKIP" serial
else
  run_suite "$NODES" "$FOCUS" "$SKIP" .
fi

# One line per spec run, from the JUnit reports (one per ginkgo process; a spec that one process
# ran is reported as skipped by the others).
for f in "$REPORT"/junit_*.xml "$REPORT"/*/junit_*.xml; do
  [ -f "$f" ] || continue
  awk '
    function emit() { if (inTc && status != "SKIP") print status " " name; inTc = 0 }
    /<testcase / {
      emit(); inTc = 1; status = "PASS"
      name = $0; sub(/.*<testcase name="/, "", name); sub(/" classname=.*/, "", name)
      if ($0 ~ /<\/testcase>/) emit()
      next
    }
    inTc && /<failure/ { status = "FAIL" }
    inTc && /<skipped/ { status = "SKIP" }
    inTc && /<\/testcase>/ { emit() }
  ' "$f"
done | sed -e 's/&#34;/"/g' -e "s/&#39;/'/g" -e 's/&lt;/</g' -e 's/&gt;/>/g' -e 's/&amp;/\&/g' |
  sort -k2 -u >"$REPORT/results.txt"
cat "$REPORT/results.txt"
passed=$(grep -c '^PASS ' "$REPORT/results.txt" || true)
failed=$(grep -c '^FAIL ' "$REPORT/results.txt" || true)
echo "$passed passed, $failed failed ($(( ($(date +%s) - started) / 60 )) min; reports in $REPORT)"
if [ $((passed + failed)) -eq 0 ]; then
  say "no spec ran (ginkgo exit $suite_rc); the end of the suite's log:"
  tail -n 30 "$REPORT"/*e2e.log "$REPORT"/*/e2e.log 2>/dev/null >&2
  exit 1
fi
[ "$failed" -eq 0 ]
