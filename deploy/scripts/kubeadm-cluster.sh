#!/usr/bin/env bash
# A cluster made by kubeadm v1.20.2 on this machine, with jkubelet as the kubelet of both nodes:
# `kubeadm init` makes the control-plane node, whose control plane (etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler) runs as static pods on jkubelet from the manifests
# kubeadm writes, and `kubeadm join` with a bootstrap token makes a worker node, which gets its
# client certificate by TLS bootstrap.
#
# This machine has no systemd, so the script plays its part: a `systemctl` on kubeadm's PATH
# (this script's `systemctl` command) starts, stops and restarts "kubelet.service" when kubeadm asks
# (`systemctl restart kubelet` in the kubelet-start and kubelet-finalize phases), with the command
# line of the unit's drop-in deploy/debian/10-kubeadm.conf, evaluated as systemd does:
# KUBELET_KUBECONFIG_ARGS, KUBELET_CONFIG_ARGS, KUBELET_KUBEADM_ARGS from
# /var/lib/kubelet/kubeadm-flags.env, and KUBELET_EXTRA_ARGS from /etc/default/kubelet, which on
# this machine is the node's own file <node dir>/default-kubelet (/etc/default is the host's). The
# kubelet is the packaged bin/kubelet (the link the Debian package installs as /usr/bin/kubelet).
# Unlike the unit's Restart=always, a jkubelet that exits is not started again: the script reports it.
# A `docker` on kubeadm's PATH lists only the node's own containers, so that `kubeadm reset` removes
# only those from this machine's shared engine, and talks to the worker's own engine on the worker.
#
# Both kubelets run with the package's paths: no --root-dir, so /var/lib/kubelet, and the
# certificates in /var/lib/kubelet/pki. The worker runs in a mount namespace of its own, where its
# own directories are bind-mounted over /etc/kubernetes and /var/lib/kubelet, so kubeadm and
# jkubelet there find the worker's files at the usual paths. It has a Docker engine of its own
# (bench-engine.sh), started in that namespace, as a second machine would: Docker resolves a pod's
# bind mounts (its volumes, the tmpfs ones jkubelet mounts among them) in its own mount namespace,
# so the worker's /var/lib/kubelet must be the one its engine sees.
#
# Both nodes share the host's network namespace and cgroup tree, so the worker's kubelet
# listens on ports of its own, each node has its own cgroup root, pod log dirs and CNI network
# (bridge + host-local over the node's spec.podCIDR, Debian's plugins, in a conf dir of its own),
# and each node has an address of its own on a bridge without ports (NODE_NET .11 and .12).
# The addons kube-proxy (a privileged DaemonSet, which this VM refuses) and CoreDNS (its image is
# not available here) are skipped.
#
# Usage: deploy/scripts/kubeadm-cluster.sh up STATE_DIR     prints the admin kubeconfig's path
#        deploy/scripts/kubeadm-cluster.sh down STATE_DIR   kubeadm reset on both nodes, and
#                                                           removes what reset leaves
# Environment: JKUBELET_K8S_CACHE (kubeadm, kubectl and the control plane's binaries in bin/,
#              built by k8s-up.sh), JKUBELET_KUBEADM_API_PORT (16443), JKUBELET_KUBEADM_NODE_NET
#              (first three octets, 10.253.0), JKUBELET_KUBEADM_POD_CIDR (10.247.0.0/16),
#              JKUBELET_KUBEADM_CP_PORTS ("10250 10248": the control-plane kubelet's port and
#              healthz port; kubeadm's defaults), JKUBELET_KUBEADM_WORKER_PORTS ("10350 10348"),
#              JKUBELET_KUBEADM_BRIDGE (bridge name prefix, jkadm), JKUBELET_KUBEADM_ENGINE_NET
#              (the worker engine's default bridge network, first three octets, 10.252.0),
#              JKUBELET_KUBEADM_WORKER=0 (the control-plane node alone: the guest bed's
#              kubeadm-cluster scenario joins guests to it instead).
# Owns, while up: /etc/kubernetes, /var/lib/kubelet, etcd's ports 2379, 2380 and 2381 (metrics),
# 10257 and 10259 (controller manager, scheduler), the API port and the kubelets' ports.
set -euo pipefail
self=$(readlink -f "${BASH_SOURCE[0]}")
scripts=$(dirname "$self")
root=$(cd "$scripts/../.." && pwd)
source "$scripts/k8s-lib.sh"
CACHE=${JKUBELET_K8S_CACHE:-/var/cache/jkubelet-k8s}
BIN=$CACHE/bin
VERSION=v1.20.2
API_PORT=${JKUBELET_KUBEADM_API_PORT:-16443}
NODE_NET=${JKUBELET_KUBEADM_NODE_NET:-10.253.0}
POD_CIDR=${JKUBELET_KUBEADM_POD_CIDR:-10.247.0.0/16}
read -r CP_PORT CP_HEALTHZ <<<"${JKUBELET_KUBEADM_CP_PORTS:-10250 10248}"
read -r WORKER_PORT WORKER_HEALTHZ <<<"${JKUBELET_KUBEADM_WORKER_PORTS:-10350 10348}"
BRIDGE=${JKUBELET_KUBEADM_BRIDGE:-jkadm}
WITH_WORKER=${JKUBELET_KUBEADM_WORKER:-1}
ENGINE_NET=${JKUBELET_KUBEADM_ENGINE_NET:-10.252.0}
CNI_BIN=${JKUBELET_CNI_BIN:-/usr/lib/cni}
DROPIN=$root/deploy/debian/10-kubeadm.conf
KUBELET=$root/agent/target/jkubelet/bin/kubelet
CP=jkubeadm-cp
WORKER=jkubeadm-worker
say() { echo "kubeadm-cluster: $*" >&2; }
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; } # seconds since $1

# ---------------------------------------------------------------------------------------------
# systemctl, as kubeadm calls it (util/initsystem: daemon-reload, start, stop, restart, status,
# is-enabled, is-active), for the node whose directory is in JKUBELET_KUBEADM_NODE_DIR.
# kubelet is the emulated unit; docker is active when the engine answers; every other unit
# (firewalld, systemd-resolved) is not there.
# ---------------------------------------------------------------------------------------------

# kubelet_command NODE_DIR: the unit's ExecStart with the drop-in's environment, one word a line.
# As systemd: `$VAR` splits at white space, `${VAR}` is one word, a `-` before an EnvironmentFile
# allows it to be missing; the last non-empty ExecStart wins.
kubelet_command() {
  local dir=$1 line file exec_start='' word name
  (
    while IFS= read -r line; do
      case "$line" in
        Environment=*)
          line=${line#Environment=}
          line=${line#\"}
          line=${line%\"}
          export "${line%%=*}=${line#*=}"
          ;;
        EnvironmentFile=*)
          file=${line#EnvironmentFile=}
          file=${file#-}
          [ "$file" = /etc/default/kubelet ] && file=$dir/default-kubelet
          if [ -f "$file" ]; then
            set -a
            # shellcheck disable=SC1090 # kubeadm-flags.env and the node's defaults
            . "$file"
            set +a
          fi
          ;;
        ExecStart=?*) exec_start=${line#ExecStart=} ;;
      esac
    done <"$DROPIN"
    read -ra words <<<"$exec_start"
    for word in "${words[@]}"; do
      case "$word" in
        /usr/bin/kubelet) echo "$KUBELET" ;;
        \$\{*\}) name=${word#\$\{}; name=${name%\}}; echo "${!name:-}" ;;
        \$*) name=${word#\$}; for w in ${!name:-}; do echo "$w"; done ;;
        *) echo "$word" ;;
      esac
    done
  )
}

kubelet_start() { # NODE_DIR
  local dir=$1 cmd
  running "$dir/kubelet.pid" && return 0
  mapfile -t cmd < <(kubelet_command "$dir")
  echo "=== $(date -u +%FT%TZ) systemctl: ${cmd[*]}" >>"$dir/kubelet.log"
  # systemd's clean environment; the JDK as the launcher would find it, and the class-data sharing
  # archive that the unit puts under /var/cache/jkubelet, per node here.
  setsid env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    JAVA_HOME="$("$scripts/java-home.sh")" JKUBELET_CDS_ARCHIVE="$dir/kubelet.jsa" \
    "${cmd[@]}" >>"$dir/kubelet.log" 2>&1 </dev/null &
  echo $! >"$dir/kubelet.pid"
}

kubelet_stop() { # NODE_DIR
  local dir=$1 pid
  pid=$(cat "$dir/kubelet.pid" 2>/dev/null) || return 0
  if running "$dir/kubelet.pid"; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 60); do running "$dir/kubelet.pid" || break; sleep 0.5; done
    running "$dir/kubelet.pid" && kill -9 "$pid" 2>/dev/null
  fi
  rm -f "$dir/kubelet.pid"
}

systemctl_command() {
  local dir=${JKUBELET_KUBEADM_NODE_DIR:?the systemctl of kubeadm-cluster.sh runs for a node}
  local verb=${1:-} unit=${2:-}
  unit=${unit%.service}
  echo "$(date -u +%FT%TZ) systemctl $*" >>"$dir/systemctl.log"
  case "$verb:$unit" in
    daemon-reload:*) return 0 ;;
    start:kubelet) kubelet_start "$dir" ;;
    stop:kubelet) kubelet_stop "$dir" ;;
    restart:kubelet) kubelet_stop "$dir"; kubelet_start "$dir" ;;
    is-enabled:kubelet | is-enabled:docker) echo enabled ;;
    is-active:kubelet) if running "$dir/kubelet.pid"; then echo active; else echo inactive; return 3; fi ;;
    is-active:docker) if docker info >/dev/null 2>&1; then echo active; else echo inactive; return 3; fi ;;
    status:kubelet | status:docker) echo "   Loaded: loaded (/lib/systemd/system/$unit.service; enabled)" ;;
    is-enabled:*) echo "Failed to get unit file state for $unit.service: No such file or directory"; return 1 ;;
    is-active:*) echo inactive; return 3 ;;
    status:*) echo "Unit $unit.service could not be found."; echo "   Loaded: not-found"; return 4 ;;
    *) echo "systemctl (kubeadm-cluster.sh): $* is not emulated" >&2; return 1 ;;
  esac
}

# docker, as kubeadm calls it, for the node whose directory is in JKUBELET_KUBEADM_NODE_DIR: the
# node's engine (the worker's own, the machine's for the control plane), and `docker ps` lists only
# this node's containers. kubeadm reset removes every container `docker ps -a --filter name=k8s_`
# lists, which on a shared engine would be every kubelet's; jkubelet labels each container with its
# node (io.jkubelet.node).
docker_command() {
  local dir=${JKUBELET_KUBEADM_NODE_DIR:?the docker of kubeadm-cluster.sh runs for a node}
  local docker=${JKUBELET_KUBEADM_DOCKER:?the docker program}
  [ ! -S "$dir/engine/docker.sock" ] || export DOCKER_HOST="unix://$dir/engine/docker.sock"
  if [ "${1:-}" = ps ]; then
    shift
    exec "$docker" ps --filter "label=io.jkubelet.node=$(basename "$dir")" "$@"
  fi
  exec "$docker" "$@"
}

# ---------------------------------------------------------------------------------------------
# The nodes
# ---------------------------------------------------------------------------------------------

# A node's cgroup root, in every cgroup v1 hierarchy (or the unified one): jkubelet (as upstream)
# wants it to exist. cpuset's cpus and mems are copied from the parent, which a new cpuset lacks.
cgroup_root_make() { # NAME
  local h
  if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
    mkdir -p "/sys/fs/cgroup/$1"
    return
  fi
  for h in /sys/fs/cgroup/*/; do
    [ -f "$h/cgroup.procs" ] || continue
    [ "$h" != /sys/fs/cgroup/unified/ ] || continue
    mkdir -p "$h$1"
    if [ -f "$h/cpuset.cpus" ]; then
      [ -n "$(cat "$h$1/cpuset.cpus")" ] || cat "$h/cpuset.cpus" >"$h$1/cpuset.cpus"
      [ -n "$(cat "$h$1/cpuset.mems")" ] || cat "$h/cpuset.mems" >"$h$1/cpuset.mems"
    fi
  done
}
cgroup_root_remove() { # NAME: the cgroups below it first (empty ones; a left process keeps its own)
  local h
  for h in /sys/fs/cgroup/*/ /sys/fs/cgroup/; do
    [ -d "$h$1" ] || continue
    find "$h$1" -depth -type d -exec rmdir {} \; 2>/dev/null || true
  done
}

# conflist BRIDGE DATA_DIR: the node's network, as bed-up.sh's: host-local hands out the node's
# spec.podCIDR, which jkubelet passes as the ipRanges capability.
conflist() {
  cat <<EOF
{"cniVersion": "0.4.0", "name": "$1", "plugins": [
  {"type": "bridge", "bridge": "$1", "isGateway": true, "ipMasq": false, "hairpinMode": true,
   "ipam": {"type": "host-local", "dataDir": "$2", "routes": [{"dst": "0.0.0.0/0"}]},
   "capabilities": {"ipRanges": true}},
  {"type": "portmap", "capabilities": {"portMappings": true}, "snat": true}
]}
EOF
}

# node_prepare DIR INDEX PORT HEALTHZ_PORT [ENGINE]: the node's own directories, network, cgroup
# root and KUBELET_EXTRA_ARGS; ENGINE, the endpoint of the node's own Docker engine.
node_prepare() {
  local dir=$1 i=$2 port=$3 healthz=$4 engine=${5:-} name
  name=$(basename "$dir")
  mkdir -p "$dir/net.d" "$dir/logs/pods" "$dir/logs/containers"
  conflist "$BRIDGE$i" "$dir/ipam" >"$dir/net.d/10-$name.conflist"
  cgroup_root_make "$name"
  # What an operator puts into /etc/default/kubelet. The node's address and ports (the worker's
  # differ from the defaults, as it shares the host's network with the control plane), its engine
  # (the worker's own), and what the two nodes of one machine must not share: the CNI conf and
  # cache dirs, the cgroup root and the pod log dirs (jkubelet's flags; the upstream kubelet has no
  # such flags). No --root-dir: the package's. No image GC: the machine's engine, and its images,
  # are the whole machine's and its tests'.
  cat >"$dir/default-kubelet" <<EOF
KUBELET_EXTRA_ARGS="--node-ip=$NODE_NET.$((10 + i)) --address=$NODE_NET.$((10 + i)) --port=$port --healthz-port=$healthz --read-only-port=0${engine:+ --docker-endpoint=$engine} --cni-conf-dir=$dir/net.d --cni-bin-dir=$CNI_BIN --cni-cache-dir=$dir/cni-cache --cgroup-root=/$name --pod-logs-dir=$dir/logs/pods --container-logs-dir=$dir/logs/containers --image-gc-high-threshold=100"
EOF
}

# kubeadm_on NODE_DIR [NS_PID] ARGS...: kubeadm with this script's systemctl and the packaged kubelet
# first on PATH, in the node's mount namespace when NS_PID is given.
kubeadm_on() {
  local dir=$1 ns=$2
  shift 2
  local enter=()
  [ -z "$ns" ] || enter=(nsenter --target "$ns" --mount)
  "${enter[@]}" env PATH="$STATE/bin:$PATH" JKUBELET_KUBEADM_NODE_DIR="$dir" "$BIN/kubeadm" "$@"
}

# Run in a new mount namespace (bash -c "$NS_SETUP ..."): private() makes the mount that holds a
# path private, so that what is mounted over the path stays in the namespace; bind() and cover()
# (an empty tmpfs) mount over a path. kubeadm reset empties /var/lib/cni, /var/lib/dockershim and
# /var/run/kubernetes, which other kubelets of this shared machine may use: covered while it runs.
NS_SETUP='
  set -e
  private() {
    local m; m=$(findmnt -n -o TARGET --target "$1")
    if [ "$m" = "$1" ]; then mount --make-rprivate "$1"; else mount --make-private "$m"; fi
  }
  bind() { private "$2"; mount --bind "$1" "$2"; }
  cover() { [ -d "$1" ] || return 0; private "$1"; mount -t tmpfs kubeadm-scratch "$1"; }
  cover_shared() { cover /var/lib/cni; cover /var/lib/dockershim; cover /var/run/kubernetes; }
'

# The worker's mount namespace, held by a `sleep` whose PID is in WORKER_DIR/ns.pid, made from the
# host's with its propagation unchanged; its engine runs in it.
worker_namespace() {
  local dir=$1
  if running "$dir/ns.pid"; then return 0; fi
  mkdir -p "$dir/etc-kubernetes" "$dir/var-lib-kubelet"
  mkdir -p /etc/kubernetes /var/lib/kubelet
  rm -f "$dir/ns.ready"
  setsid unshare --mount --propagation unchanged bash -c "$NS_SETUP"'
    bind "$1/etc-kubernetes" /etc/kubernetes
    bind "$1/var-lib-kubelet" /var/lib/kubelet
    cover_shared
    touch "$1/ns.ready"
    exec sleep infinity' worker-ns "$dir" </dev/null >"$dir/ns.log" 2>&1 &
  echo $! >"$dir/ns.pid"
  for _ in $(seq 1 50); do [ -f "$dir/ns.ready" ] && break; sleep 0.1; done
  [ -f "$dir/ns.ready" ] || { say "the worker's mount namespace did not come up: $(cat "$dir/ns.log")"; exit 1; }
}

# worker_engine DIR: the worker's own Docker engine, in its mount namespace (bench-engine.sh, with
# the test pods' images), with the sandbox image under the name kubeadm gives the kubelet
# (--pod-infra-container-image in kubeadm-flags.env). Prints its endpoint.
worker_engine() {
  local dir=$1 endpoint
  endpoint=$(nsenter --target "$(cat "$dir/ns.pid")" --mount env BENCH_ENGINE_BRIDGE="${BRIDGE}e" \
    BENCH_ENGINE_NET="$ENGINE_NET" "$scripts/bench-engine.sh" "$dir/engine")
  docker -H "$endpoint" tag jkubelet/pause:3.2 k8s.gcr.io/pause:3.2
  echo "$endpoint"
}

kubectl() { "$BIN/kubectl" --kubeconfig "$STATE/admin.conf" "$@"; }

# wait_ready NODE NODE_DIR SECONDS
wait_ready() {
  local node=$1 dir=$2 secs=$3
  for _ in $(seq 1 "$secs"); do
    kubectl get node "$node" --no-headers 2>/dev/null | grep -q ' Ready ' && return 0
    running "$dir/kubelet.pid" || { say "$node's jkubelet exited; the end of $dir/kubelet.log:"; tail -n 30 "$dir/kubelet.log" >&2; exit 1; }
    sleep 1
  done
  say "$node not Ready after $secs s; see $dir/kubelet.log"
  exit 1
}

up() {
  local t0 t1 join
  for b in kubeadm kubectl kube-apiserver kube-controller-manager kube-scheduler; do
    [ -x "$BIN/$b" ] || { say "no $BIN/$b; deploy/scripts/k8s-up.sh builds it"; exit 1; }
  done
  [ -x "$KUBELET" ] || { say "jkubelet is not packaged ($KUBELET): mvn -DskipTests package"; exit 1; }
  [ -x "$CNI_BIN/bridge" ] || { say "no CNI plugins in $CNI_BIN (Debian's containernetworking-plugins)"; exit 1; }
  if [ -e /etc/kubernetes/admin.conf ] || [ -e /var/lib/kubelet/config.yaml ]; then
    say "/etc/kubernetes or /var/lib/kubelet holds a cluster already; kubeadm-cluster.sh down STATE_DIR (or kubeadm reset) first"
    exit 1
  fi
  "$scripts/kubeadm-images.sh"
  mkdir -p "$STATE/bin"
  for c in systemctl docker; do
    printf '#!/bin/sh\nJKUBELET_KUBEADM_DOCKER=%q exec %q %s "$@"\n' "$(command -v docker)" "$self" "$c" >"$STATE/bin/$c"
    chmod 0755 "$STATE/bin/$c"
  done
  ln -sfn "$KUBELET" "$STATE/bin/kubelet"

  # The nodes' addresses, on a bridge of their own.
  ip link show "${BRIDGE}0" >/dev/null 2>&1 || ip link add "${BRIDGE}0" type bridge
  ip link set "${BRIDGE}0" up
  ip addr replace "$NODE_NET.11/32" dev "${BRIDGE}0"
  ip addr replace "$NODE_NET.12/32" dev "${BRIDGE}0"
  sysctl -qw net.ipv4.ip_forward=1

  local cp=$STATE/$CP worker=$STATE/$WORKER
  node_prepare "$cp" 1 "$CP_PORT" "$CP_HEALTHZ"
  # Preflight errors, each ignored for its reason:
  #   ImagePull: kubeadm pulls every image of the version, kube-proxy's and CoreDNS's too, although
  #     their addon phases are skipped; they are not available here. The others exist (built by
  #     kubeadm-images.sh) and are not pulled.
  #   Port-10250, only when the control-plane kubelet listens elsewhere (JKUBELET_KUBEADM_CP_PORTS).
  local ignore=ImagePull
  [ "$CP_PORT" = 10250 ] || ignore+=,Port-10250
  say "kubeadm init (log: $STATE/kubeadm-init.log)"
  t0=$(date +%s.%N)
  if ! kubeadm_on "$cp" '' init --kubernetes-version "$VERSION" --node-name "$CP" \
    --apiserver-advertise-address "$NODE_NET.11" --apiserver-bind-port "$API_PORT" \
    --pod-network-cidr "$POD_CIDR" --skip-phases=addon/kube-proxy,addon/coredns \
    --ignore-preflight-errors="$ignore" >"$STATE/kubeadm-init.log" 2>&1; then
    say "kubeadm init failed; the end of $STATE/kubeadm-init.log:"
    tail -n 30 "$STATE/kubeadm-init.log" >&2
    exit 1
  fi
  say "kubeadm init: $(since "$t0") s"
  cp /etc/kubernetes/admin.conf "$STATE/admin.conf"

  if [ "$WITH_WORKER" != 1 ]; then
    wait_ready "$CP" "$cp" 120
    say "the control-plane node Ready $(since "$t0") s after kubeadm init started (no worker here)"
    echo "$STATE/admin.conf"
    return
  fi
  # The worker: a bootstrap token, and kubeadm join in its namespace. The preflight error ignored:
  #   Port-10250: the control-plane kubelet's port, in the network namespace both nodes share;
  #     the worker's kubelet listens on its own.
  worker_namespace "$worker"
  say "the worker's engine (log: $worker/engine/dockerd.log)"
  node_prepare "$worker" 2 "$WORKER_PORT" "$WORKER_HEALTHZ" "$(worker_engine "$worker")"
  read -ra join < <("$BIN/kubeadm" token create --print-join-command --kubeconfig "$STATE/admin.conf")
  say "${join[*]:0:4} ... (log: $STATE/kubeadm-join.log)"
  t1=$(date +%s.%N)
  if ! kubeadm_on "$worker" "$(cat "$worker/ns.pid")" "${join[@]:1}" --node-name "$WORKER" \
    --ignore-preflight-errors=Port-10250 >"$STATE/kubeadm-join.log" 2>&1; then
    say "kubeadm join failed; the end of $STATE/kubeadm-join.log:"
    tail -n 30 "$STATE/kubeadm-join.log" >&2
    exit 1
  fi
  say "kubeadm join: $(since "$t1") s"
  wait_ready "$CP" "$cp" 120
  wait_ready "$WORKER" "$worker" 120
  say "both nodes Ready $(since "$t0") s after kubeadm init started"
  echo "$STATE/admin.conf"
}

# down: what kubeadm reset does on each node (it stops the kubelet through systemctl, removes the
# Kubernetes containers, unmounts and empties /var/lib/kubelet, removes /etc/kubernetes' files and
# etcd's data), then what it leaves: the kubelets' pid files, the worker's engine, namespace and root dir,
# the cgroup roots, the bridges and addresses, the CNI state.
down() {
  local cp=$STATE/$CP worker=$STATE/$WORKER ns
  if [ -d "$worker" ]; then
    if running "$worker/ns.pid"; then
      ns=$(cat "$worker/ns.pid")
      kubeadm_on "$worker" "$ns" reset -f >"$STATE/kubeadm-reset-worker.log" 2>&1 || say "kubeadm reset on the worker failed; see $STATE/kubeadm-reset-worker.log"
    fi
    JKUBELET_KUBEADM_NODE_DIR=$worker systemctl_command stop kubelet
    if [ -d "$worker/engine" ]; then
      BENCH_ENGINE_BRIDGE="${BRIDGE}e" "$scripts/bench-engine.sh" --down "$worker/engine" || say "the worker's engine did not go down"
    fi
    [ -f "$worker/ns.pid" ] && running "$worker/ns.pid" && kill "$(cat "$worker/ns.pid")" 2>/dev/null
    rm -f "$worker/ns.pid" "$worker/ns.ready"
    findmnt -rn -o TARGET | awk -v r="$worker/" 'index($1, r) == 1' | sort -r | while read -r m; do umount "$m" 2>/dev/null || umount -l "$m"; done
  fi
  if [ -d "$cp" ]; then
    if [ -x "$BIN/kubeadm" ]; then
      unshare --mount --propagation unchanged bash -c "$NS_SETUP"'
        cover_shared
        exec env PATH="$1:$PATH" JKUBELET_KUBEADM_NODE_DIR="$2" "$3" reset -f' reset-ns "$STATE/bin" "$cp" "$BIN/kubeadm" \
        >"$STATE/kubeadm-reset.log" 2>&1 || say "kubeadm reset failed; see $STATE/kubeadm-reset.log"
    fi
    JKUBELET_KUBEADM_NODE_DIR=$cp systemctl_command stop kubelet
    ids=$(docker ps -aq --filter "label=io.jkubelet.node=$CP")
    [ -z "$ids" ] || docker rm -f $ids >/dev/null 2>&1 || true
    findmnt -rn -o TARGET | awk '$1 == "/var/lib/kubelet" || index($1, "/var/lib/kubelet/") == 1' | sort -r |
      while read -r m; do umount "$m" 2>/dev/null || umount -l "$m"; done
    # What reset leaves: the kubelet's config and certificates, the CNI config dir reset names.
    rm -rf --one-file-system /etc/kubernetes /var/lib/kubelet /var/lib/etcd
  fi
  for n in "$CP" "$WORKER"; do cgroup_root_remove "$n"; done
  for l in $(ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -E "^${BRIDGE}[0-9]+$"); do
    ip link del "$l" 2>/dev/null || true
  done
  rm -rf --one-file-system "$cp" "$worker" "$STATE/bin"
}

case "${1:-}" in
  systemctl) shift; systemctl_command "$@" ;;
  docker) shift; docker_command "$@" ;;
  up) STATE=$(mkdir -p "${2:?usage: kubeadm-cluster.sh up STATE_DIR}" && cd "$2" && pwd); up ;;
  down) STATE=$(cd "${2:?usage: kubeadm-cluster.sh down STATE_DIR}" 2>/dev/null && pwd) || exit 0; down ;;
  *) echo "usage: kubeadm-cluster.sh up|down STATE_DIR" >&2; exit 2 ;;
esac
