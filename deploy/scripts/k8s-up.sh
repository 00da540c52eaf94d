#!/usr/bin/env bash
# Brings up a real control plane on loopback for cluster-mode tests, made the way kubeadm makes
# one: etcd (Debian's etcd-server), and kube-apiserver, kube-controller-manager and kube-scheduler
# v1.20.2, built once per machine from Debian's `kubernetes` source package into a cache outside
# the checkout. Generates a CA, serving and client certificates, and a kubeconfig for the admin and
# for each component. The API server authorizes with Node,RBAC and admits with its default plugins
# plus NodeRestriction, so a kubelet must join as a node (k8s-node-kubeconfig.sh makes its
# kubeconfig). The controller manager runs kubeadm's controllers, so namespaces get their
# `default` ServiceAccount and are finalized when deleted. Idempotent: whatever already runs in
# STATE_DIR is reused, and only what is missing is started.
#
# Usage: deploy/scripts/k8s-up.sh [STATE_DIR]
# Prints the admin kubeconfig's path on stdout; everything else goes to stderr.
# Environment: JKUBELET_K8S_CACHE (build cache, default /var/cache/jkubelet-k8s),
#              JKUBELET_APISERVER_PORT (default 6443), JKUBELET_ETCD_PORT (default 23790);
#              without them, a STATE_DIR started before keeps its ports;
#              JKUBELET_APISERVER_ADDRESS (default 127.0.0.1): where the API server listens and
#              what it advertises as the `kubernetes` Service's endpoint (an address that pods
#              reach, for a cluster of several nodes), in its certificate from the STATE_DIR's start;
#              JKUBELET_CLUSTER_CIDR (default 10.244.0.0/16): the controller manager gives each
#              Node a /24 of it as spec.podCIDR, as kubeadm's podSubnet;
#              JKUBELET_CLUSTER_SIGNING_DURATION (default unset: the controller manager's 1 year):
#              the lifetime of the certificates it signs (--cluster-signing-duration), e.g. 10m to
#              see kubelets rotate theirs; v1.20's signer backdates each by 5 minutes, so a duration
#              under about 6m gives certificates that have expired when they arrive. It applies
#              when the controller manager starts;
#              JKUBELET_AUDIT_NODES=1: the API server writes one audit line per request of a node
#              (group system:nodes; user, verb, resource, no bodies) to STATE_DIR/audit-nodes.log,
#              so that a benchmark counts what each node asked; nothing of other clients. It applies
#              when the API server starts.
# The controller manager and the scheduler serve their health checks on API port + 20000 and
# API port + 21000, so control planes on different ports can run side by side (JKUBELET_CM_PORT and
# JKUBELET_SCHED_PORT override them where two control planes' derived ports would collide).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
STATE=${1:-/tmp/jkubelet-k8s}
CACHE=${JKUBELET_K8S_CACHE:-/var/cache/jkubelet-k8s}
mkdir -p "$STATE"
# Started again in the same STATE_DIR (as the tests do after stopping the API server), the control
# plane keeps the ports it was first given unless the environment names others.
saved_api='' saved_etcd=''
[ -f "$STATE/ports" ] && read -r saved_api saved_etcd < "$STATE/ports"
API_PORT=${JKUBELET_APISERVER_PORT:-${saved_api:-6443}}
ETCD_PORT=${JKUBELET_ETCD_PORT:-${saved_etcd:-23790}}
echo "$API_PORT $ETCD_PORT" > "$STATE/ports"
CM_PORT=${JKUBELET_CM_PORT:-$((API_PORT + 20000))}
SCHED_PORT=${JKUBELET_SCHED_PORT:-$((API_PORT + 21000))}
BIN=$CACHE/bin
ADDRESS=${JKUBELET_APISERVER_ADDRESS:-127.0.0.1}
CLUSTER_CIDR=${JKUBELET_CLUSTER_CIDR:-10.244.0.0/16}
# kube-proxy is built with the control plane; the tests with several nodes run it on the host.
# kubeadm too: kubeadm-cluster.sh makes a cluster with it (make gives it its version, v1.20.2).
COMPONENTS=(kube-apiserver kube-controller-manager kube-scheduler kube-proxy kubeadm)
mkdir -p "$STATE" "$BIN"

apt_install() {
  local missing=()
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "k8s-up: installing ${missing[*]}" >&2
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
  fi
}

apt_install etcd-server openssl ca-certificates curl

# kubectl from Debian's kubernetes-client (v1.20, matching the API server), extracted into the
# cache rather than installed, so it never clashes with a kubectl the machine already has.
if [ ! -x "$BIN/kubectl" ]; then
  echo "k8s-up: fetching kubectl from Debian's kubernetes-client" >&2
  apt_install dpkg-dev
  dl=$(mktemp -d)
  (cd "$dl" && apt-get download kubernetes-client >&2 || { apt-get update -qq >&2 && apt-get download kubernetes-client >&2; })
  dpkg-deb -x "$dl"/kubernetes-client_*.deb "$dl/root"
  install -m 0755 "$dl/root/usr/bin/kubectl" "$BIN/kubectl"
  rm -rf "$dl"
fi
kubectl() { "$BIN/kubectl" "$@"; }

# v1.20.2 vendors reflect2 1.0.1, whose map iteration faults under Go 1.18 and later: the API
# server built with Debian's Go dies with "unexpected fault address" encoding a map (seen under the
# [Conformance] suite). Debian's golang-github-modern-go-reflect2-dev (1.0.2, the fixed release) is
# put in its place in the source tree, and whatever was built before from the old one is built
# again: the control plane, kube-proxy and, in their scripts, e2e.test, agnhost and the reference
# kubelet. The marker records that the cache's tree and binaries have the fix.
FIXED=$CACHE/.reflect2-1.0.2
fix_reflect2() { # SOURCE_TREE
  local vendored=$1/vendor/github.com/modern-go/reflect2
  apt_install golang-github-modern-go-reflect2-dev
  rm -f "$vendored"/*.go "$vendored"/*.s
  cp /usr/share/gocode/src/github.com/modern-go/reflect2/*.go "$vendored/"
  rm -f "$vendored"/*_test.go
}
if [ -d "$CACHE/src/kubernetes-1.20.2" ] && [ ! -f "$FIXED" ]; then
  exec 9>"$CACHE/build.lock"
  flock 9
  if [ ! -f "$FIXED" ]; then
    echo "k8s-up: replacing the vendored reflect2 1.0.1 with Debian's 1.0.2; the binaries are built again" >&2
    fix_reflect2 "$CACHE/src/kubernetes-1.20.2"
    (cd "$BIN" && rm -f kube-apiserver kube-controller-manager kube-scheduler kube-proxy kubeadm e2e.test agnhost kubelet-ref)
    rm -rf "$CACHE/src/kubernetes-1.20.2/_output/bin" "$CACHE/src/kubernetes-1.20.2/_output/local/go/bin"
    touch "$FIXED"
  fi
  exec 9>&-
fi

missing() { for c in "${COMPONENTS[@]}"; do [ -x "$BIN/$c" ] || echo "cmd/$c"; done; }
if [ -n "$(missing)" ]; then
  # One build at a time per cache; whoever waited finds the binaries built.
  exec 9>"$CACHE/build.lock"
  flock 9
fi
targets=$(missing | xargs)
if [ -n "$targets" ]; then
  echo "k8s-up: building $targets v1.20.2 from Debian's source package into $CACHE (once per machine, several minutes)" >&2
  apt_install golang-go rsync jq dpkg-dev
  if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ && ! grep -qs '^deb-src' /etc/apt/sources.list; then
    # Enable source packages next to the binary ones.
    for f in /etc/apt/sources.list.d/debian.sources; do
      [ -f "$f" ] && sed -i 's/^Types: deb$/Types: deb deb-src/' "$f"
    done
    apt-get update -qq >&2
  fi
  src=$CACHE/src
  mkdir -p "$src"
  if [ ! -d "$src/kubernetes-1.20.2" ]; then
    (cd "$src" && apt-get source --download-only kubernetes >&2 && tar xzf kubernetes_*.orig.tar.gz)
    fix_reflect2 "$src/kubernetes-1.20.2"
    touch "$FIXED"
  fi
  mkdir -p "$src/gopath/src/k8s.io"
  ln -sfn "$src/kubernetes-1.20.2" "$src/gopath/src/k8s.io/kubernetes"
  (
    export GOPATH=$src/gopath GOCACHE=$CACHE/gocache GO111MODULE=off HOME=$CACHE/home
    mkdir -p "$HOME"
    cd "$src/gopath/src/k8s.io/kubernetes"
    # One make for all that is missing: the targets share most of their packages.
    make WHAT="$targets" >&2
  )
  for t in $targets; do
    c=${t#cmd/}
    cp "$src/kubernetes-1.20.2/_output/bin/$c" "$BIN/$c.tmp"
    mv "$BIN/$c.tmp" "$BIN/$c"
  done
fi
exec 9>&-

source "$(dirname "${BASH_SOURCE[0]}")/k8s-lib.sh"
PKI=$STATE/pki
mkdir -p "$PKI"
if [ ! -f "$PKI/ca.key" ]; then
  (
    cd "$PKI"
    openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 3650 -subj "/CN=jkubelet-test-ca" 2>/dev/null
    printf '[req]\ndistinguished_name=dn\n[dn]\n[ext]\nsubjectAltName=IP:127.0.0.1,IP:%s,IP:10.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc\n' "$ADDRESS" > san.cnf
    openssl req -newkey rsa:2048 -nodes -keyout apiserver.key -out apiserver.csr -subj "/CN=kube-apiserver" 2>/dev/null
    openssl x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out apiserver.crt -days 3650 -extfile san.cnf -extensions ext 2>/dev/null
    openssl genrsa -out sa.key 2048 2>/dev/null
    openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
  )
fi
# The front proxy's CA, apart from the cluster's as kubeadm makes it: the API server publishes it
# for the components, which authenticate requests that an aggregating proxy forwards.
if [ ! -f "$PKI/front-proxy-ca.key" ]; then
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$PKI/front-proxy-ca.key" -out "$PKI/front-proxy-ca.crt" \
    -days 3650 -subj "/CN=front-proxy-ca" 2>/dev/null
fi
client_cert "$PKI" front-proxy-client "/CN=front-proxy-client" front-proxy-ca
# Client identities as kubeadm gives them: the admin in system:masters, each component as its
# own user, which the API server's bootstrap RBAC policy already knows.
client_cert "$PKI" admin "/O=system:masters/CN=admin"
client_cert "$PKI" controller-manager "/CN=system:kube-controller-manager"
client_cert "$PKI" scheduler "/CN=system:kube-scheduler"
# kube-proxy's identity, bound by the bootstrap policy to system:node-proxier.
client_cert "$PKI" kube-proxy "/CN=system:kube-proxy"
# The API server's identity towards kubelets, as kubeadm names it, outside system:masters: the
# kubelet's Webhook authorization asks the API server about it, and the ClusterRoleBinding made
# below grants it the bootstrap role system:kubelet-api-admin (nodes/proxy, log, stats, metrics).
client_cert "$PKI" apiserver-kubelet-client "/CN=kube-apiserver-kubelet-client"
SERVER=https://$ADDRESS:$API_PORT
KC=$STATE/admin.kubeconfig
write_kubeconfig "$KC" "$SERVER" "$PKI" admin
write_kubeconfig "$STATE/controller-manager.kubeconfig" "$SERVER" "$PKI" controller-manager
write_kubeconfig "$STATE/scheduler.kubeconfig" "$SERVER" "$PKI" scheduler
write_kubeconfig "$STATE/kube-proxy.kubeconfig" "$SERVER" "$PKI" kube-proxy

start() { # name command...
  local name=$1; shift
  if running "$STATE/$name.pid"; then return; fi
  setsid "$@" >"$STATE/$name.log" 2>&1 </dev/null &
  echo $! >"$STATE/$name.pid"
}
start etcd etcd --name jkubelet-test --data-dir "$STATE/etcd" \
  --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
  --listen-peer-urls "http://127.0.0.1:$((ETCD_PORT + 10))" --initial-advertise-peer-urls "http://127.0.0.1:$((ETCD_PORT + 10))" \
  --initial-cluster "jkubelet-test=http://127.0.0.1:$((ETCD_PORT + 10))"
audit=()
if [ "${JKUBELET_AUDIT_NODES:-0}" = 1 ]; then
  cat >"$STATE/audit-nodes.yaml" <<'EOF2'
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived, ResponseStarted]
rules:
- level: Metadata
  userGroups: ["system:nodes"]
- level: None
EOF2
  audit=(--audit-policy-file="$STATE/audit-nodes.yaml" --audit-log-path="$STATE/audit-nodes.log"
    --audit-log-format=json)
fi
# The default admission plugins (ServiceAccount among them) plus NodeRestriction, and bootstrap
# tokens (nodes join with one, as kubeadm's do), as kubeadm sets.
start apiserver "$BIN/kube-apiserver" --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
  --enable-bootstrap-token-auth=true \
  --bind-address="$ADDRESS" --advertise-address="$ADDRESS" --secure-port="$API_PORT" \
  --tls-cert-file="$PKI/apiserver.crt" --tls-private-key-file="$PKI/apiserver.key" --client-ca-file="$PKI/ca.crt" \
  --service-account-key-file="$PKI/sa.pub" --service-account-signing-key-file="$PKI/sa.key" \
  --service-account-issuer=https://kubernetes.default.svc --service-cluster-ip-range=10.0.0.0/24 \
  --authorization-mode=Node,RBAC --enable-admission-plugins=NodeRestriction --allow-privileged=true \
  --kubelet-client-certificate="$PKI/apiserver-kubelet-client.crt" --kubelet-client-key="$PKI/apiserver-kubelet-client.key" \
  --kubelet-preferred-address-types=InternalIP,Hostname \
  --requestheader-client-ca-file="$PKI/front-proxy-ca.crt" --requestheader-allowed-names=front-proxy-client \
  --requestheader-username-headers=X-Remote-User --requestheader-group-headers=X-Remote-Group \
  --requestheader-extra-headers-prefix=X-Remote-Extra- \
  --proxy-client-cert-file="$PKI/front-proxy-client.crt" --proxy-client-key-file="$PKI/front-proxy-client.key" \
  ${audit[@]+"${audit[@]}"}

alive() { running "$STATE/$1.pid"; }
# wait_until CHECK NAME...: up to 90 s for CHECK to pass while the processes NAME... run.
wait_until() {
  local check=$1; shift
  for _ in $(seq 1 90); do
    "$check" && return 0
    for name in "$@"; do
      if ! alive "$name"; then
        echo "k8s-up: $name exited; the last lines of $STATE/$name.log:" >&2
        tail -n 5 "$STATE/$name.log" >&2
        echo "k8s-up: is another control plane using ports $API_PORT/$ETCD_PORT/$CM_PORT/$SCHED_PORT? Set JKUBELET_APISERVER_PORT and JKUBELET_ETCD_PORT." >&2
        "$(dirname "$0")/k8s-down.sh" "$STATE"
        exit 1
      fi
    done
    sleep 1
  done
  "$check" && return 0
  echo "k8s-up: the control plane did not become ready; the last lines of each log in $STATE:" >&2
  for name in "$@"; do
    echo "--- $name" >&2
    tail -n 10 "$STATE/$name.log" >&2
  done
  exit 1
}
apiserver_ready() { kubectl --kubeconfig "$KC" get --raw /readyz >/dev/null 2>&1; }
wait_until apiserver_ready etcd apiserver
kubectl --kubeconfig "$KC" create clusterrolebinding kube-apiserver-kubelet-client \
  --clusterrole=system:kubelet-api-admin --user=kube-apiserver-kubelet-client --dry-run=client -o yaml |
  kubectl --kubeconfig "$KC" apply -f - >/dev/null

# Started once the API server is ready: the controller manager exits when it cannot yet read the
# configmaps that the API server's bootstrap RBAC roles let it read.
# kubeadm's flags, except leader election: one instance runs per control plane, and an elected
# leader exits when it cannot renew its lease, which the tests' API server outages would cause.
start controller-manager "$BIN/kube-controller-manager" \
  --kubeconfig="$STATE/controller-manager.kubeconfig" \
  --authentication-kubeconfig="$STATE/controller-manager.kubeconfig" \
  --authorization-kubeconfig="$STATE/controller-manager.kubeconfig" \
  --bind-address=127.0.0.1 --secure-port="$CM_PORT" --port=0 --cert-dir="$STATE/controller-manager" \
  --client-ca-file="$PKI/ca.crt" --requestheader-client-ca-file="$PKI/front-proxy-ca.crt" \
  --root-ca-file="$PKI/ca.crt" \
  --service-account-private-key-file="$PKI/sa.key" \
  --cluster-signing-cert-file="$PKI/ca.crt" --cluster-signing-key-file="$PKI/ca.key" \
  --use-service-account-credentials=true --controllers='*,bootstrapsigner,tokencleaner' \
  --allocate-node-cidrs=true --cluster-cidr="$CLUSTER_CIDR" --node-cidr-mask-size=24 \
  --leader-elect=false \
  ${JKUBELET_CLUSTER_SIGNING_DURATION:+--cluster-signing-duration="$JKUBELET_CLUSTER_SIGNING_DURATION"}
start scheduler "$BIN/kube-scheduler" \
  --kubeconfig="$STATE/scheduler.kubeconfig" \
  --authentication-kubeconfig="$STATE/scheduler.kubeconfig" \
  --authorization-kubeconfig="$STATE/scheduler.kubeconfig" \
  --bind-address=127.0.0.1 --secure-port="$SCHED_PORT" --port=0 --cert-dir="$STATE/scheduler" \
  --leader-elect=false
healthz() { curl -skf --max-time 2 "https://127.0.0.1:$1/healthz" >/dev/null 2>&1; }
# Ready: both components' /healthz, and the `default` ServiceAccount that the controller manager
# makes in every namespace, which the ServiceAccount admission plugin wants before any pod.
components_ready() {
  apiserver_ready && healthz "$CM_PORT" && healthz "$SCHED_PORT" &&
    kubectl --kubeconfig "$KC" -n default get serviceaccount default >/dev/null 2>&1
}
wait_until components_ready etcd apiserver controller-manager scheduler
echo "k8s-up: control plane ready at $SERVER (controller manager :$CM_PORT, scheduler :$SCHED_PORT)" >&2
echo "$KC"
