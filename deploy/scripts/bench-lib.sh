#!/usr/bin/env bash
# Sourced by the cluster-mode benchmarks (bench-cluster.sh, bench-secret-update.sh,
# bench-kubelet-api.sh): the build, a control plane (k8s-up.sh), jkubelet joined to it as its own
# node (k8s-node-kubeconfig.sh), the benchmark's Java class run as the admin, and the cleanup.
#
#   bench_build                   packages jkubelet (tests compiled, not run); sets bench_cp
#   bench_cluster_up PREFIX [FLAG...]
#                                 starts (or reuses) the control plane, then jkubelet with FLAGs
#                                 as node PREFIX-<pid>, and waits until the node is Ready; sets
#                                 kubeconfig, node, work, root_dir, kubelet_port, state, bench_pki
#   bench_java CLASS [ARG...]     runs a class of agent/src/test/java/io/jkubelet/agent/bench
#   kubectl_ [ARG...]             kubectl as the admin
#   bench_agent_argv KIND DIR [ENGINE]
#                                 the command line of an agent, jkubelet or kubelet (the upstream
#                                 kubelet v1.20.2), before the flags every caller gives both, into
#                                 the array bench_argv (see below)
#
# Environment: JKUBELET_BENCH_K8S_STATE (the control plane's state dir, default
# /tmp/jkubelet-k8s-bench), JKUBELET_APISERVER_PORT and JKUBELET_ETCD_PORT (read by k8s-up.sh),
# KUBELET_PORT (jkubelet's API port; default a free one), JKUBELET_MVN_ONLINE (let Maven go online),
# KEEP_LOG=1 (keep jkubelet's log). A control plane that already ran in the state dir is left
# running at exit; one that the benchmark started is stopped.
bench_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$bench_root/deploy/scripts/build-env.sh"
source "$bench_root/deploy/scripts/k8s-lib.sh"
bench_kubectl=${JKUBELET_K8S_CACHE:-/var/cache/jkubelet-k8s}/bin/kubectl
state=${JKUBELET_BENCH_K8S_STATE:-/tmp/jkubelet-k8s-bench}
kubeconfig='' node='' work='' root_dir='' kubelet_port='' bench_jk='' bench_k8s_started=''
bench_pki=$state/pki

kubectl_() { "$bench_kubectl" --kubeconfig "$kubeconfig" "$@"; }

# One reactor build: the class path names the config module's classes, not an installed jar.
bench_build() {
  local offline=-o cpfile
  [ -n "${JKUBELET_MVN_ONLINE:-}" ] && offline=
  cpfile=$(mktemp)
  (cd "$bench_root" && mvn -B -ntp -q $offline -pl agent -am -DskipTests package \
    dependency:build-classpath -Dmdep.outputFile="$cpfile" -Dmdep.includeScope=test)
  bench_cp="$bench_root/agent/target/test-classes:$bench_root/agent/target/classes:$bench_root/config/target/classes:$(cat "$cpfile")"
  rm -f "$cpfile"
}

bench_cleanup() {
  local rc=$? ids
  if [ "$rc" -ne 0 ] && [ -n "$work" ] && [ -f "$work/jkubelet.log" ]; then
    echo "bench: the last lines of jkubelet's log:" >&2
    tail -n 20 "$work/jkubelet.log" >&2 || true
  fi
  if [ -n "$bench_jk" ]; then kill "$bench_jk" 2>/dev/null && wait "$bench_jk" 2>/dev/null || true; fi
  if [ -n "$node" ]; then
    ids=$(docker ps -aq --filter "label=io.jkubelet.node=$node")
    [ -n "$ids" ] && docker rm -f $ids >/dev/null 2>&1 || true
    [ -n "$kubeconfig" ] && kubectl_ delete node "$node" --wait=false >/dev/null 2>&1 || true
  fi
  if [ -n "$work" ]; then
    if [ -n "${KEEP_LOG:-}" ] && [ -f "$work/jkubelet.log" ]; then
      cp "$work/jkubelet.log" "${TMPDIR:-/tmp}/$node.log" && echo "bench: jkubelet's log kept at ${TMPDIR:-/tmp}/$node.log" >&2
    fi
    # Secret and token volumes are tmpfs mounts under the root dir.
    grep -o " $work/[^ ]*" /proc/mounts | sort -r | xargs -r -n1 umount -l 2>/dev/null || true
    rm -rf "$work"
  fi
  [ -n "$bench_k8s_started" ] && "$bench_root/deploy/scripts/k8s-down.sh" "$state"
  return "$rc"
}

bench_cluster_up() {
  local prefix=$1; shift
  running "$state/apiserver.pid" || bench_k8s_started=1
  trap bench_cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  kubeconfig=$("$bench_root/deploy/scripts/k8s-up.sh" "$state")
  node=$prefix-$$
  local node_kubeconfig
  node_kubeconfig=$("$bench_root/deploy/scripts/k8s-node-kubeconfig.sh" "$state" "$node")
  work=$(mktemp -d)
  root_dir=$work/root
  mkdir -p "$work/manifests"
  kubelet_port=${KUBELET_PORT:-$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
  "$bench_root/agent/target/jkubelet/bin/jkubelet" run --kubeconfig "$node_kubeconfig" --hostname-override "$node" \
    --node-ip 127.0.0.1 --pod-manifest-path "$work/manifests" --root-dir "$root_dir" \
    --read-only-port 0 --port "$kubelet_port" --healthz-port 0 --max-pods 200 \
    --pod-infra-container-image jkubelet/pause:3.2 --fail-swap-on=false "$@" > "$work/jkubelet.log" 2>&1 &
  bench_jk=$!
  local deadline=$((SECONDS + 120))
  until kubectl_ get node "$node" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null | grep -q True; do
    kill -0 "$bench_jk" 2>/dev/null || { echo "bench: jkubelet exited" >&2; exit 1; }
    [ $SECONDS -lt $deadline ] || { echo "bench: node $node not Ready within 120 s" >&2; exit 1; }
    sleep 0.5
  done
  echo "bench: node $node Ready (jkubelet pid $bench_jk, port $kubelet_port, log $work/jkubelet.log)" >&2
}

bench_java() {
  local cls=$1; shift
  "$JAVA_HOME/bin/java" $(grep -o -- --sun-misc-unsafe-memory-access=allow <<< "${MAVEN_OPTS:-}") -Dlogback.configurationFile=logback-bench.xml -cp "$bench_cp" "io.jkubelet.agent.bench.$cls" "$@"
}

# bench_agent_argv KIND DIR [ENGINE]: the command of the agent KIND, on the Docker engine ENGINE
# (an endpoint; default the machine's, /var/run/docker.sock), before the flags that a benchmark gives
# both (--kubeconfig, --hostname-override, --root-dir, ports, ...), into the array bench_argv:
#   jkubelet  the launcher (agent/target/jkubelet) with `run`, its pod logs under DIR;
#   jkubelet-off  the same with jkubelet's own reports off (--pod-start-timeline=false
#             --image-pull-progress=false), to measure what they cost;
#   jkubelet-base  the same with another checkout's build (JKUBELET_BASE), e.g. the commit before
#             a change, with only the flags that build knows too;
#   JKUBELET_BENCH_FLAGS  more flags for jkubelet and jkubelet-off (not the base), e.g. to give
#             this build a setting whose default changed since the base's;
#   kubelet   the upstream kubelet v1.20.2 (kubelet-ref.sh, built once per machine) on the machine's
#             Docker engine through dockershim, as bed-up.sh runs it, with its dockershim socket
#             and checkpoints under DIR, so that it never meets another upstream kubelet of the
#             machine (kubeadm's, or another benchmark's), in a mount namespace whose
#             /var/log/pods and /var/log/containers are under DIR (kubelet-ref-ns.sh: its --root-dir
#             must be under DIR too). NOTE: it takes every Kubernetes
#             container of its engine for its own and kills the pods not bound to its node: on an
#             engine that others use, give it one of its own (bench-engine.sh).
# Neither runs QoS cgroups: the benchmarks' nodes share the host's cgroup tree with whatever else
# runs there, and the two agents are then compared on the same footing.
bench_agent_argv() {
  local kind=$1 dir=$2 engine=${3:-unix:///var/run/docker.sock}
  mkdir -p "$dir"
  case $kind in
    jkubelet | jkubelet-off | jkubelet-base)
      local build=$bench_root
      if [ "$kind" = jkubelet-base ]; then build=$JKUBELET_BASE; fi
      bench_argv=("$build/agent/target/jkubelet/bin/jkubelet" run --docker-endpoint "$engine" --cgroups-per-qos=false
        --enforce-node-allocatable= --pod-logs-dir "$dir/logs/pods" --container-logs-dir "$dir/logs/containers"
        --fail-swap-on=false)
      if [ "$kind" = jkubelet-off ]; then bench_argv+=(--pod-start-timeline=false --image-pull-progress=false); fi
      # shellcheck disable=SC2206 # the flags are words
      if [ "$kind" != jkubelet-base ]; then bench_argv+=(${JKUBELET_BENCH_FLAGS:-}); fi
      ;;
    kubelet)
      bench_argv=("$bench_root/deploy/scripts/kubelet-ref-ns.sh" "$dir" "$("$bench_root/deploy/scripts/kubelet-ref.sh")"
        --container-runtime=docker --docker-endpoint="$engine"
        --container-runtime-endpoint="unix://$dir/dockershim.sock" --image-service-endpoint="unix://$dir/dockershim.sock"
        --experimental-dockershim-root-directory="$dir/dockershim" --cgroup-driver=cgroupfs --fail-swap-on=false
        --cgroups-per-qos=false --enforce-node-allocatable= --image-gc-high-threshold=100 --eviction-hard=
        --cert-dir "$dir/pki") ;;
    *) echo "bench: no agent $kind (jkubelet, jkubelet-off, jkubelet-base or kubelet)" >&2; return 2 ;;
  esac
}
