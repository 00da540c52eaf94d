#!/usr/bin/env bash
# Brings up a real control plane on loopback for cluster-mode tests: etcd (Debian's etcd-server)
# and kube-apiserver v1.20.2, built once per machine from Debian's `kubernetes` source package
# into a cache outside the checkout. Generates a CA, serving and client certificates, and an
# admin kubeconfig. Idempotent: a running control plane in STATE_DIR is reused.
#
# Usage: deploy/scripts/k8s-up.sh [STATE_DIR]
# Prints the admin kubeconfig's path on stdout; everything else goes to stderr.
# Environment: JKUBELET_K8S_CACHE (build cache, default /var/cache/jkubelet-k8s),
#              JKUBELET_APISERVER_PORT (default 6443), JKUBELET_ETCD_PORT (default 23790).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
STATE=${1:-/tmp/jkubelet-k8s}
CACHE=${JKUBELET_K8S_CACHE:-/var/cache/jkubelet-k8s}
API_PORT=${JKUBELET_APISERVER_PORT:-6443}
ETCD_PORT=${JKUBELET_ETCD_PORT:-23790}
BIN=$CACHE/bin
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

if [ ! -x "$BIN/kube-apiserver" ]; then
  echo "k8s-up: building kube-apiserver v1.20.2 from Debian's source package into $CACHE (once per machine, several minutes)" >&2
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
  fi
  mkdir -p "$src/gopath/src/k8s.io"
  ln -sfn "$src/kubernetes-1.20.2" "$src/gopath/src/k8s.io/kubernetes"
  (
    export GOPATH=$src/gopath GOCACHE=$CACHE/gocache GO111MODULE=off HOME=$CACHE/home
    mkdir -p "$HOME"
    cd "$src/gopath/src/k8s.io/kubernetes"
    make WHAT=cmd/kube-apiserver >&2
  )
  cp "$src/kubernetes-1.20.2/_output/bin/kube-apiserver" "$BIN/kube-apiserver.tmp"
  mv "$BIN/kube-apiserver.tmp" "$BIN/kube-apiserver"
fi

PKI=$STATE/pki
mkdir -p "$PKI"
if [ ! -f "$PKI/admin.crt" ]; then
  (
    cd "$PKI"
    openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 3650 -subj "/CN=jkubelet-test-ca" 2>/dev/null
    printf '[req]\ndistinguished_name=dn\n[dn]\n[ext]\nsubjectAltName=IP:127.0.0.1,IP:10.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default\n' > san.cnf
    openssl req -newkey rsa:2048 -nodes -keyout apiserver.key -out apiserver.csr -subj "/CN=kube-apiserver" 2>/dev/null
    openssl x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out apiserver.crt -days 3650 -extfile san.cnf -extensions ext 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -keyout admin.key -out admin.csr -subj "/O=system:masters/CN=admin" 2>/dev/null
    openssl x509 -req -in admin.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out admin.crt -days 3650 2>/dev/null
    openssl genrsa -out sa.key 2048 2>/dev/null
    openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
  )
fi
KC=$STATE/admin.kubeconfig
cat > "$KC" <<KCF
apiVersion: v1
kind: Config
clusters:
- name: jkubelet-test
  cluster: {server: "https://127.0.0.1:$API_PORT", certificate-authority: "$PKI/ca.crt"}
users:
- name: admin
  user: {client-certificate: "$PKI/admin.crt", client-key: "$PKI/admin.key"}
contexts:
- name: jkubelet-test
  context: {cluster: jkubelet-test, user: admin}
current-context: jkubelet-test
KCF

start() { # name command...
  local name=$1; shift
  if [ -f "$STATE/$name.pid" ] && kill -0 "$(cat "$STATE/$name.pid")" 2>/dev/null; then return; fi
  setsid "$@" >"$STATE/$name.log" 2>&1 </dev/null &
  echo $! >"$STATE/$name.pid"
}
start etcd etcd --name jkubelet-test --data-dir "$STATE/etcd" \
  --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
  --listen-peer-urls "http://127.0.0.1:$((ETCD_PORT + 10))" --initial-advertise-peer-urls "http://127.0.0.1:$((ETCD_PORT + 10))" \
  --initial-cluster "jkubelet-test=http://127.0.0.1:$((ETCD_PORT + 10))"
start apiserver "$BIN/kube-apiserver" --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
  --bind-address=127.0.0.1 --secure-port="$API_PORT" \
  --tls-cert-file="$PKI/apiserver.crt" --tls-private-key-file="$PKI/apiserver.key" --client-ca-file="$PKI/ca.crt" \
  --service-account-key-file="$PKI/sa.pub" --service-account-signing-key-file="$PKI/sa.key" \
  --service-account-issuer=https://kubernetes.default.svc --service-cluster-ip-range=10.0.0.0/24 \
  --authorization-mode=Node,RBAC --allow-privileged=true \
  --kubelet-client-certificate="$PKI/admin.crt" --kubelet-client-key="$PKI/admin.key" \
  --kubelet-preferred-address-types=InternalIP,Hostname
alive() { kill -0 "$(cat "$STATE/$1.pid")" 2>/dev/null; }
for _ in $(seq 1 90); do
  kubectl --kubeconfig "$KC" get --raw /readyz >/dev/null 2>&1 && break
  if ! alive etcd || ! alive apiserver; then
    for name in etcd apiserver; do
      if ! alive "$name"; then
        echo "k8s-up: $name exited; the last lines of $STATE/$name.log:" >&2
        tail -n 5 "$STATE/$name.log" >&2
      fi
    done
    echo "k8s-up: is another control plane using ports $API_PORT/$ETCD_PORT? Set JKUBELET_APISERVER_PORT and JKUBELET_ETCD_PORT." >&2
    "$(dirname "$0")/k8s-down.sh" "$STATE"
    exit 1
  fi
  sleep 1
done
if ! kubectl --kubeconfig "$KC" get --raw /readyz >/dev/null 2>&1; then
  echo "k8s-up: kube-apiserver did not become ready; see $STATE/apiserver.log" >&2
  tail -n 30 "$STATE/apiserver.log" >&2
  exit 1
fi
# The default service account appears once the controller manager runs; tests create pods with
# automountServiceAccountToken: false, or without a service account, so none is needed here.
echo "k8s-up: API server ready at https://127.0.0.1:$API_PORT" >&2
echo "$KC"
