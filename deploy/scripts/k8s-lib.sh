#!/usr/bin/env bash
# Sourced by k8s-up.sh, k8s-down.sh and k8s-node-kubeconfig.sh: client certificates signed by the
# test CA, kubeconfigs that use them, and whether a recorded process still runs.

# running PIDFILE: whether the process in PIDFILE runs. NOTE: not `kill -0`, which succeeds on a
# zombie, and a killed component stays one until init reaps it.
running() {
  local pid
  pid=$(cat "$1" 2>/dev/null) || return 1
  [ -n "$pid" ] && [ -r "/proc/$pid/status" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$pid/status" 2>/dev/null
}

# client_cert PKI NAME SUBJECT [CA]: PKI/NAME.crt and PKI/NAME.key for SUBJECT (e.g. "/CN=admin"),
# signed by PKI/CA.crt (default: ca), made once. A random serial instead of the CA's serial file,
# and the key moved in before the certificate, so that concurrent callers never see half a pair.
client_cert() {
  local pki=$1 name=$2 subj=$3 ca=${4:-ca} tmp
  [ -f "$pki/$name.crt" ] && return 0
  tmp=$(mktemp -d "$pki/.$name.XXXXXX")
  openssl req -newkey rsa:2048 -nodes -keyout "$tmp/key" -out "$tmp/csr" -subj "$subj" 2>/dev/null
  openssl x509 -req -in "$tmp/csr" -CA "$pki/$ca.crt" -CAkey "$pki/$ca.key" \
    -set_serial "0x$(openssl rand -hex 16)" -out "$tmp/crt" -days 3650 2>/dev/null
  mv "$tmp/key" "$pki/$name.key"
  mv "$tmp/crt" "$pki/$name.crt"
  rm -rf "$tmp"
}

# write_kubeconfig FILE SERVER PKI NAME: a kubeconfig for SERVER that trusts PKI/ca.crt and
# authenticates with PKI/NAME.crt. Written to a temporary file and moved into place.
write_kubeconfig() {
  local file=$1 server=$2 pki=$3 name=$4
  cat > "$file.tmp.$$" <<KCF
apiVersion: v1
kind: Config
clusters:
- name: jkubelet-test
  cluster: {server: "$server", certificate-authority: "$pki/ca.crt"}
users:
- name: $name
  user: {client-certificate: "$pki/$name.crt", client-key: "$pki/$name.key"}
contexts:
- name: jkubelet-test
  context: {cluster: jkubelet-test, user: $name}
current-context: jkubelet-test
KCF
  mv "$file.tmp.$$" "$file"
}

# Removes the CNI portmap plugin's host-port rules of network NAME (its CNI-HOSTPORT-DNAT rule,
# commented `dnat name: "NAME"`, and the per-sandbox CNI-DN-* chain it jumps to). Only for a
# network no pod is on: a run stopped before its kubelets tore their pods down leaves them behind,
# and an old DNAT for a host port comes before a new pod's and takes its connections.
remove_portmap_rules() {
  local name=$1 num chain
  # No such chain on a machine where portmap never ran: nothing to remove.
  { iptables -w -t nat -L CNI-HOSTPORT-DNAT -n --line-numbers 2>/dev/null || true; } |
    awk -v n="dnat name: \"$name\" " 'index($0, n) { print $1, $2 }' | sort -rn |
    while read -r num chain; do
      iptables -w -t nat -D CNI-HOSTPORT-DNAT "$num" &&
        iptables -w -t nat -F "$chain" && iptables -w -t nat -X "$chain" &&
        echo "removed the stale host-port rules of network $name ($chain)" >&2
    done
}
