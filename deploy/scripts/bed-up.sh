#!/usr/bin/env bash
# A cluster of several nodes on this one machine, on the control plane that k8s-up.sh runs in
# STATE_DIR: kube-proxy v1.20.2 on the host in iptables mode (its DaemonSet pod would need a
# privileged container), and NODES packaged jkubelets, each a node of its own with its own name,
# address (the kubelet API at 10250 there), root dir, log dirs and CNI network. Idempotent: what
# already runs is kept.
#
# Every address stays on this machine: each node's address is on an interface the bed makes
# (NODE_NET, default 10.250.0.0/24, node i at .(10+i), on a portless bridge); each node's pods are
# on a bridge of its own (BRIDGE_PREFIX + i) with Debian's CNI plugins (bridge, host-local over the
# node's spec.podCIDR by the ipRanges capability, portmap, firewall, bandwidth), so the host routes
# between the nodes' pod ranges as between its own interfaces. Nothing is routed off the machine.
#
# With JKUBELET_BED_KUBELET=upstream, the nodes are upstream kubelets v1.20.2 (kubelet-ref.sh)
# with the same flags and network, each on a dockerd of its own (its own root, socket and
# containerd, no bridge or iptables of Docker's, the bed's images loaded), since an upstream
# kubelet takes every Kubernetes container of its engine for its own.
#
# Usage: deploy/scripts/bed-up.sh STATE_DIR [NODES]
# Prints the node names, one a line, on stdout; everything else goes to stderr.
# Environment: JKUBELET_BED_PREFIX (node names, default jkubelet-bed), JKUBELET_BED_PLUGIN (cni or
#              kubenet; kubenet has one cbr0 per machine, so it takes one node), JKUBELET_BED_BRIDGE
#              (bridge name prefix, default jkbed), JKUBELET_BED_NODE_NET (first three octets,
#              default 10.250.0), JKUBELET_BED_KUBELET_PORT (10250, at each node's own address),
#              JKUBELET_BED_FLAGS (more jkubelet flags), kube-proxy's ports
#              JKUBELET_BED_PROXY_HEALTHZ_PORT (10256) and _METRICS_PORT (10249), JKUBELET_CLUSTER_CIDR
#              (kube-proxy's --cluster-cidr, as k8s-up.sh's), JKUBELET_K8S_CACHE.
# Stop it with bed-down.sh STATE_DIR.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
scripts=$root/deploy/scripts
source "$scripts/k8s-lib.sh"
STATE=${1:?usage: bed-up.sh STATE_DIR [NODES]}
NODES=${2:-2}
CACHE=${JKUBELET_K8S_CACHE:-/var/cache/jkubelet-k8s}
BIN=$CACHE/bin
PREFIX=${JKUBELET_BED_PREFIX:-jkubelet-bed}
PLUGIN=${JKUBELET_BED_PLUGIN:-cni}
BRIDGE=${JKUBELET_BED_BRIDGE:-jkbed}
NODE_NET=${JKUBELET_BED_NODE_NET:-10.250.0}
CLUSTER_CIDR=${JKUBELET_CLUSTER_CIDR:-10.244.0.0/16}
CNI_BIN=${JKUBELET_CNI_BIN:-/usr/lib/cni}
# Each node listens at its own address on the kubelet's usual port: the e2e suite reaches some
# kubelet endpoints through the API server's node proxy at port 10250, whatever the Node says.
KUBELET_PORT=${JKUBELET_BED_KUBELET_PORT:-10250}
PROXY_HEALTHZ=${JKUBELET_BED_PROXY_HEALTHZ_PORT:-10256}
PROXY_METRICS=${JKUBELET_BED_PROXY_METRICS_PORT:-10249}
BED=$STATE/bed
KC=$STATE/admin.kubeconfig
say() { echo "bed-up: $*" >&2; }
kubectl() { "$BIN/kubectl" --kubeconfig "$KC" "$@"; }

[ -f "$KC" ] || { say "no control plane in $STATE; start one with k8s-up.sh $STATE"; exit 1; }
[ -x "$BIN/kube-proxy" ] || { say "no kube-proxy in $BIN; k8s-up.sh builds it"; exit 1; }
[ -x "$CNI_BIN/bridge" ] || { say "no CNI plugins in $CNI_BIN (Debian's containernetworking-plugins)"; exit 1; }
if [ "$PLUGIN" = kubenet ] && [ "$NODES" -ne 1 ]; then
  say "kubenet's bridge is cbr0, one per machine: NODES must be 1"
  exit 2
fi
KUBELET=${JKUBELET_BED_KUBELET:-jkubelet}
launcher=$root/agent/target/jkubelet/bin/jkubelet
if [ "$KUBELET" = upstream ]; then
  launcher=$("$scripts/kubelet-ref.sh")
else
  [ -x "$launcher" ] || { say "jkubelet is not packaged: mvn -DskipTests package"; exit 1; }
fi
mkdir -p "$BED"

# The nodes' addresses, on an interface of the bed's (a bridge without ports: this VM has no dummy
# module); the host forwards between bridges.
link=${BRIDGE}0
ip link show "$link" >/dev/null 2>&1 || ip link add "$link" type bridge
ip link set "$link" up
for i in $(seq 1 "$NODES"); do
  ip addr replace "$NODE_NET.$((10 + i))/32" dev "$link"
done
sysctl -qw net.ipv4.ip_forward=1

# One kube-proxy for the machine: the nodes share its network namespace, so one set of rules
# serves them all.
if ! running "$BED/kube-proxy.pid"; then
  setsid "$BIN/kube-proxy" --kubeconfig "$STATE/kube-proxy.kubeconfig" --proxy-mode=iptables \
    --cluster-cidr="$CLUSTER_CIDR" --hostname-override="$PREFIX-1" \
    --bind-address=127.0.0.1 --healthz-bind-address="127.0.0.1:$PROXY_HEALTHZ" \
    --metrics-bind-address="127.0.0.1:$PROXY_METRICS" \
    --conntrack-max-per-core=0 --conntrack-tcp-timeout-established=0 --conntrack-tcp-timeout-close-wait=0 \
    >"$BED/kube-proxy.log" 2>&1 </dev/null &
  echo $! >"$BED/kube-proxy.pid"
  for _ in $(seq 1 30); do
    curl -sf "http://127.0.0.1:$PROXY_HEALTHZ/healthz" >/dev/null 2>&1 && break
    running "$BED/kube-proxy.pid" || break
    sleep 1
  done
  running "$BED/kube-proxy.pid" ||
    { say "kube-proxy exited; the end of its log:"; grep -v '^[[:space:]]' "$BED/kube-proxy.log" | tail -n 5 >&2; exit 1; }
  say "kube-proxy started (log: $BED/kube-proxy.log)"
fi

# The network of node i: host-local hands out its spec.podCIDR, which jkubelet passes as ipRanges
# (host-local takes no range of its own then). No masquerading: nothing leaves the machine, and a
# pod sees the other node's pod's own address.
conflist() { # BRIDGE DATA_DIR
  cat <<EOF
{"cniVersion": "0.4.0", "name": "$1", "plugins": [
  {"type": "bridge", "bridge": "$1", "isGateway": true, "ipMasq": false, "hairpinMode": true,
   "ipam": {"type": "host-local", "dataDir": "$2", "routes": [{"dst": "0.0.0.0/0"}]},
   "capabilities": {"ipRanges": true}},
  {"type": "portmap", "capabilities": {"portMappings": true}, "snat": true},
  {"type": "firewall"},
  {"type": "bandwidth", "capabilities": {"bandwidth": true}}
]}
EOF
}

# node_engine DIR I: a dockerd of node I's own, started once, with the images of the default
# engine that the bed's pods use; prints its endpoint. Its default network is a bridge of the bed's
# (BRIDGE_PREFIX d I, unused by pods, which are on CNI): NOTE: `dockerd --bridge=none` deletes the
# machine's docker0 when it starts, which the default engine's containers need.
node_engine() {
  local dir=$1 sock=$1/docker.sock images br=${BRIDGE}d$2
  if ! running "$dir/dockerd.pid"; then
    mkdir -p "$dir/docker"
    ip link show "$br" >/dev/null 2>&1 || ip link add "$br" type bridge
    ip addr replace "10.249.$2.1/24" dev "$br"
    ip link set "$br" up
    setsid dockerd --data-root "$dir/docker" --exec-root "$dir/docker-run" --pidfile "$dir/dockerd.pid.docker" \
      --host "unix://$sock" --bridge="$br" --iptables=false --ip-masq=false --ip-forward=false \
      >"$dir/dockerd.log" 2>&1 </dev/null &
    echo $! >"$dir/dockerd.pid"
    for _ in $(seq 1 60); do docker -H "unix://$sock" info >/dev/null 2>&1 && break; sleep 1; done
    images=$( (docker images --filter label=io.jkubelet.e2e-image --format '{{.Repository}}:{{.Tag}}';
      echo jkubelet/busybox:1.35; echo jkubelet/pause:3.2;
      docker image inspect k8s.gcr.io/pause:3.2 >/dev/null 2>&1 && echo k8s.gcr.io/pause:3.2) | sort -u)
    # shellcheck disable=SC2086 # a list of image names
    docker save $images | docker -H "unix://$sock" load >/dev/null
    say "dockerd of $(basename "$dir") at unix://$sock"
  fi
  echo "unix://$sock"
}

for i in $(seq 1 "$NODES"); do
  node=$PREFIX-$i
  dir=$BED/$node
  ip=$NODE_NET.$((10 + i))
  if running "$dir/jkubelet.pid"; then
    echo "$node"
    continue
  fi
  mkdir -p "$dir/manifests" "$dir/net.d" "$dir/logs/pods" "$dir/logs/containers"
  net=(--network-plugin="$PLUGIN" --cni-bin-dir="$CNI_BIN" --cni-cache-dir="$dir/cni-cache")
  if [ "$PLUGIN" = cni ]; then
    remove_portmap_rules "$BRIDGE$i" # a new node: no pod is on its network yet
    conflist "$BRIDGE$i" "$dir/ipam" >"$dir/net.d/10-bed.conflist"
    net+=(--cni-conf-dir="$dir/net.d")
  fi
  node_kc=$("$scripts/k8s-node-kubeconfig.sh" "$STATE" "$node")
  # No QoS cgroups on the bed, for either kubelet: its nodes share one host's cgroup tree. No
  # image GC either: the engine's images are the tests' (upstream's kubelet runs without it too).
  run=(run --pod-logs-dir "$dir/logs/pods" --container-logs-dir "$dir/logs/containers"
    --cgroups-per-qos=false --enforce-node-allocatable= --image-gc-high-threshold=100 --fail-swap-on=false)
  if [ "$KUBELET" = upstream ]; then
    engine=$(node_engine "$dir" "$i")
    run=(--container-runtime=docker --docker-endpoint="$engine" --cgroup-driver=cgroupfs
      --fail-swap-on=false --cgroups-per-qos=false --enforce-node-allocatable= --eviction-hard=
      --image-gc-high-threshold=100 --cert-dir="$dir/pki")
  fi
  # shellcheck disable=SC2086 # JKUBELET_BED_FLAGS is a list of flags
  setsid "$launcher" "${run[@]}" --kubeconfig "$node_kc" --hostname-override "$node" --node-ip "$ip" \
    --address "$ip" --port "$KUBELET_PORT" --healthz-port 0 --read-only-port 0 \
    --root-dir "$dir/root" --pod-manifest-path "$dir/manifests" \
    --client-ca-file "$STATE/pki/ca.crt" --anonymous-auth=false --authentication-token-webhook \
    --authorization-mode Webhook --cluster-domain cluster.local \
    "${net[@]}" ${JKUBELET_BED_FLAGS:-} >"$dir/jkubelet.log" 2>&1 </dev/null &
  echo $! >"$dir/jkubelet.pid"
  say "node $node at $ip (log: $dir/jkubelet.log)"
  echo "$node"
done

for i in $(seq 1 "$NODES"); do
  node=$PREFIX-$i
  for _ in $(seq 1 90); do
    kubectl get node "$node" --no-headers 2>/dev/null | grep -q ' Ready ' && break
    running "$BED/$node/jkubelet.pid" || { say "$node exited; the end of its log:"; tail -n 20 "$BED/$node/jkubelet.log" >&2; exit 1; }
    sleep 1
  done
  kubectl get node "$node" --no-headers 2>/dev/null | grep -q ' Ready ' ||
    { say "$node not Ready after 90 s; see $BED/$node/jkubelet.log"; exit 1; }
done
say "$NODES nodes Ready"
