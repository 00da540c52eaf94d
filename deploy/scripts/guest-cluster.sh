#!/usr/bin/env bash
# Sourced by guest-scenarios.sh: the cluster scenarios, whose guest joins a control plane on this
# machine. k8s-up.sh's control plane (the real API server with Node,RBAC and NodeRestriction, the
# controller manager, the scheduler) listens on an address of a link that the bed makes and removes
# (BED_LINK: a bridge with no port, as some kernels have no dummy links), so that nothing but this
# machine and its guests ever sees it:
# - the guest reaches the API server at the same address and port through a `guestfwd` rule of its
#   user-mode network (each connection spawns `socat` here, bound to that address: should the link
#   be gone, the connection fails rather than leave the machine), so its kubeconfig names the
#   address the serving certificate was made for;
# - the API server reaches the guest's kubelet (logs, exec) at the guest's own address, which the
#   guest reports as its InternalIP: the link holds that address too, with a `hostfwd` of its port
#   10250 into the guest.
# The guest's node credentials (a client certificate for system:node:debian, the host name of the
# image) go onto its shared disk, with the kubeconfig kubeadm's join would leave.
#
# Environment: JKUBELET_GUEST_API_PORT (default 6560), JKUBELET_GUEST_ETCD_PORT (default 23980).

BED_LINK=jkguest0 # not jkbed*, the multi-node bed's (bed-down.sh removes every jkbed<N>)
BED_API_ADDR=10.0.2.100 # in the guest's user-mode network: forwarded to the same address here
BED_NODE_ADDR=10.0.2.15 # the guest's own address in that network (QEMU's default)
BED_NODE=debian
BED_API_PORT=${JKUBELET_GUEST_API_PORT:-6560}
BED_ETCD_PORT=${JKUBELET_GUEST_ETCD_PORT:-23980}
BED_STATE=''
BED_WATCHES=()

BED_KUBECTL=${JKUBELET_K8S_CACHE:-/var/cache/jkubelet-k8s}/bin/kubectl
BIN_KUBEADM=${JKUBELET_K8S_CACHE:-/var/cache/jkubelet-k8s}/bin/kubeadm
bed_kubectl() { "$BED_KUBECTL" --kubeconfig "$BED_STATE/admin.kubeconfig" "$@"; }

# cluster_up STATE: the link, the control plane in STATE, and BED_KUBE (a directory for the
# guest's shared disk: ca.crt, the node's client certificate and key in one PEM as the kubelet's
# TLS bootstrap leaves it, and kubelet.conf naming them by their paths in the guest).
cluster_up() {
  BED_STATE=$1
  if ip link show "$BED_LINK" >/dev/null 2>&1; then
    echo "guest: link $BED_LINK exists already (another bed running?)" >&2
    return 1
  fi
  ip link add "$BED_LINK" type bridge &&
    ip addr add "$BED_API_ADDR/32" dev "$BED_LINK" &&
    ip addr add "$BED_NODE_ADDR/32" dev "$BED_LINK" &&
    ip link set "$BED_LINK" up &&
    node_address_source "$BED_NODE_ADDR" "$BED_LINK" "$BED_API_ADDR" || return 1
  JKUBELET_APISERVER_ADDRESS=$BED_API_ADDR JKUBELET_APISERVER_PORT=$BED_API_PORT \
    JKUBELET_ETCD_PORT=$BED_ETCD_PORT "$here/k8s-up.sh" "$BED_STATE" >/dev/null || return 1
  local kc pki=$BED_STATE/pki
  kc=$("$here/k8s-node-kubeconfig.sh" "$BED_STATE" "$BED_NODE") || return 1
  BED_KUBE=$BED_STATE/guest-kube
  mkdir -p "$BED_KUBE"
  cp "$pki/ca.crt" "$BED_KUBE/ca.crt"
  cat "$pki/node-$BED_NODE.crt" "$pki/node-$BED_NODE.key" >"$BED_KUBE/kubelet-client-current.pem"
  cat >"$BED_KUBE/kubelet.conf" <<KCF
apiVersion: v1
kind: Config
clusters:
- name: bed
  cluster: {server: "https://$BED_API_ADDR:$BED_API_PORT", certificate-authority: /etc/kubernetes/pki/ca.crt}
users:
- name: system:node:$BED_NODE
  user: {client-certificate: /var/lib/kubelet/pki/kubelet-client-current.pem, client-key: /var/lib/kubelet/pki/kubelet-client-current.pem}
contexts:
- name: system:node:$BED_NODE@bed
  context: {cluster: bed, user: "system:node:$BED_NODE"}
current-context: system:node:$BED_NODE@bed
KCF
  echo "guest: control plane on https://$BED_API_ADDR:$BED_API_PORT ($kc)" >&2
}

# node_address_source NODE_ADDR LINK SOURCE: connections from here to a guest's own address leave
# from SOURCE, an address the guest reaches through its user-mode network (a guestfwd address),
# not from NODE_ADDR itself, the kernel's choice for an address of this machine. QEMU's user-mode
# network shows a forwarded connection to the guest as coming from the connecting side's address
# (unless that is a loopback one): from NODE_ADDR, the guest's own, its answers never left it, and
# the API server's connections to the kubelet hung before the TLS handshake.
node_address_source() {
  ip route replace table local local "$1" dev "$2" proto kernel scope host src "$3"
}

cluster_down() {
  local pid
  for pid in "${BED_WATCHES[@]}"; do kill "$pid" 2>/dev/null || true; done
  BED_WATCHES=()
  if [ -n "$BED_STATE" ]; then
    "$here/k8s-down.sh" "$BED_STATE" >/dev/null 2>&1 || true
    BED_STATE=''
  fi
  ip link del "$BED_LINK" 2>/dev/null || true
}

# host_result BOOT DIR CHECK PASS|FAIL|INFO DETAIL...: a result of this side's, in the scenario's
# timed log beside the guest's (the same RESULT format, "host" for the guest's uptime).
host_result() {
  local boot=$1 dir=$2 check=$3 verdict=$4 t0
  shift 4
  t0=$(cat "$dir/t0")
  printf '[host +%ss] @@GB %s host RESULT %s %s %s %s\n' "$(($(date +%s) - t0))" "$boot" \
    "$(basename "$dir")" "$check" "$verdict" "$*" | tee -a "$dir/timed.log" >&2
}

# run_cluster_scenario NAME: a fresh control plane, NAME's pods (deploy/guest/cluster/NAME.yaml)
# created there before the guest boots, watches of the nodes and pods kept in the scenario's
# results, then the guest, then the control plane's end.
run_cluster_scenario() {
  local name=$1 out=$RESULTS/$1 sa ns
  if ! cluster_up "$work/k8s-$name"; then
    echo "guest: $name: the control plane did not start" >&2
    status=2
    cluster_down
    return
  fi
  # Pods need their namespace's default ServiceAccount (admission), which the controller manager
  # makes.
  for ns in default kube-system; do
    for _ in $(seq 1 120); do
      sa=$(bed_kubectl -n "$ns" get serviceaccount default -o name 2>/dev/null) && [ -n "$sa" ] && break
      sleep 1
    done
  done
  bed_kubectl apply -f "$root/deploy/guest/cluster/$name.yaml" >&2
  BED_EXPECTED_PODS=$(bed_kubectl get pods -A --no-headers 2>/dev/null | wc -l)
  mkdir -p "$work/watch-$name"
  # The binary itself in the background (not the function, whose subshell would outlive a kill).
  "$BED_KUBECTL" --kubeconfig "$BED_STATE/admin.kubeconfig" get nodes -w --output-watch-events \
    -o json >"$work/watch-$name/nodes.json" 2>&1 &
  BED_WATCHES+=($!)
  "$BED_KUBECTL" --kubeconfig "$BED_STATE/admin.kubeconfig" get pods -A -w --output-watch-events \
    -o json >"$work/watch-$name/pods.json" 2>&1 &
  BED_WATCHES+=($!)
  if declare -F "host_during_${name//-/_}" >/dev/null; then
    "host_during_${name//-/_}" "$work/watch-$name" &
    BED_WATCHES+=($!)
  fi
  GUEST_HOSTFWD="hostfwd=tcp:$BED_NODE_ADDR:10250-:10250,guestfwd=tcp:$BED_API_ADDR:$BED_API_PORT-cmd:socat - TCP:$BED_API_ADDR:$BED_API_PORT,,bind=$BED_API_ADDR" \
    run_guest_scenario "$name"
  bed_kubectl get nodes,pods,events -A -o wide >"$out/api-objects.txt" 2>&1 || true
  cluster_down
  cp -r "$work/watch-$name" "$out/watch"
  cp "$work/k8s-$name"/*.log "$out/watch/" 2>/dev/null || true
  BED_EXPECTED_PODS='' BED_KUBE=''
}

# node_saw WATCH_DIR JQ: true when some node event of the watch matches JQ (over the object).
node_saw() { jq -e -s "any(.[] | .object? // empty; $2)" "$1/nodes.json" >/dev/null 2>&1; }
ready_message() { jq -r '.status.conditions[]? | select(.type == "Ready") | .status + " " + .reason + ": " + .message'; }

# shutdown, boot 1 ended (the guest powered off): the pods' final statuses and the node's
# NotReady, as the API server has them while the guest is off.
host_after_shutdown() {
  local boot=$1 dir=$2 w=$work/watch-shutdown pods verdict p
  [ "$boot" = 1 ] || return 0
  pods=$(bed_kubectl get pods -A -o json)
  for p in shutdown-quick shutdown-slow shutdown-critical; do
    local st
    st=$(jq -r --arg p "$p" '.items[] | select(.metadata.name == $p) | .status.phase + "/" + (.status.reason // "") + ": " + (.status.message // "")' <<<"$pods")
    case $st in Failed/Shutdown:*) verdict=PASS ;; *) verdict=FAIL ;; esac
    host_result "$boot" "$dir" "api:final-status:$p" "$verdict" "${st:-no such pod}"
  done
  node_saw "$w" '.status.conditions[]? | select(.type == "Ready") | .status == "False" and (.message | test("node is shutting down"))' &&
    verdict=PASS || verdict=FAIL
  host_result "$boot" "$dir" api:node-not-ready-shutting-down "$verdict" \
    "Ready as the API server has it now: $(bed_kubectl get node "$BED_NODE" -o json 2>/dev/null | ready_message)"
}

# memory-pressure, while the guest runs: kubectl logs and exec through the API server, once the
# guaranteed pod runs (they reach the guest's kubelet on BED_NODE_ADDR:10250).
host_during_memory_pressure() {
  local w=$1
  for _ in $(seq 1 3600); do
    if [ "$(bed_kubectl get pod guaranteed -o jsonpath='{.status.phase}' 2>/dev/null)" = Running ]; then
      sleep 5
      bed_kubectl logs guaranteed >"$w/logs.txt" 2>&1
      echo "rc=$?" >>"$w/logs.txt"
      # The guest waits for this file (scenario_memory_pressure).
      bed_kubectl exec guaranteed -- sh -c 'touch /tmp/exec-from-the-api-server && hostname' >"$w/exec.txt" 2>&1
      echo "rc=$?" >>"$w/exec.txt"
      return 0
    fi
    sleep 1
  done
}

host_after_memory_pressure() {
  local boot=$1 dir=$2 w=$work/watch-memory-pressure pods verdict st
  pods=$(bed_kubectl get pods -o json)
  st=$(jq -r '.items[] | select(.metadata.name == "hog") | .status.phase + "/" + (.status.reason // "") + ": " + (.status.message // "")' <<<"$pods")
  case $st in Failed/Evicted:*) verdict=PASS ;; *) verdict=FAIL ;; esac
  host_result "$boot" "$dir" api:besteffort-evicted "$verdict" "hog: ${st:-no such pod}"
  for p in guaranteed burstable; do
    st=$(jq -r --arg p "$p" '.items[] | select(.metadata.name == $p) | .status.phase + " restarts " + ([.status.containerStatuses[]?.restartCount] | add // 0 | tostring) + " qos " + .status.qosClass' <<<"$pods")
    case $st in "Running restarts 0 "*) verdict=PASS ;; *) verdict=FAIL ;; esac
    host_result "$boot" "$dir" "api:$p-kept" "$verdict" "$p: ${st:-no such pod}"
  done
  node_saw "$w" '.status.conditions[]? | select(.type == "MemoryPressure") | .status == "True"' &&
    verdict=PASS || verdict=FAIL
  host_result "$boot" "$dir" api:node-memory-pressure "$verdict" "a MemoryPressure True condition in the nodes' watch"
  # The hog's Evicted event, and none for the others.
  st=$(bed_kubectl get events --field-selector reason=Evicted -o jsonpath='{range .items[*]}{.involvedObject.name}: {.message}{"\n"}{end}' 2>&1)
  grep -q '^hog: ' <<<"$st" && ! grep -qE '^(guaranteed|burstable): ' <<<"$st" && verdict=PASS || verdict=FAIL
  host_result "$boot" "$dir" api:evicted-event "$verdict" "$(tr '\n' ' ' <<<"${st:-none}")"
  grep -q 'guaranteed up' "$w/logs.txt" 2>/dev/null && grep -q rc=0 "$w/logs.txt" && verdict=PASS || verdict=FAIL
  host_result "$boot" "$dir" api:kubectl-logs "$verdict" "$(tr '\n' ' ' <"$w/logs.txt" 2>/dev/null | cut -c1-200)"
  grep -q 'rc=0' "$w/exec.txt" 2>/dev/null && verdict=PASS || verdict=FAIL
  host_result "$boot" "$dir" api:kubectl-exec "$verdict" "$(tr '\n' ' ' <"$w/exec.txt" 2>/dev/null | cut -c1-200)"
}

# ---------------------------------------------------------------------------------------------
# kubeadm-cluster: a cluster across machines. `kubeadm init` makes the control-plane node on this
# machine (kubeadm-cluster.sh, its control plane as static pods on jkubelet; TCG makes a control
# plane inside a guest too slow), advertised on 10.0.2.11 of its own bridge; two guests `kubeadm
# join` it with a bootstrap token and the package's defaults. Each guest reaches the API server at
# that address through its guestfwd, and the API server reaches each guest's kubelet at its own
# address (10.0.2.15, 10.0.2.16: the second guest's user-mode network hands out .16) through a
# hostfwd of 10250. The guests reach each other over a socket netdev between their QEMUs
# (192.168.251.1 and .2), each routing the other's pod subnet. This side checks at the API
# server: both nodes Ready; a Deployment of two pods, one on each guest, serving their names;
# each pod reaches the other's address over the guests' network (kubectl exec, wget); kubectl logs
# of both. Then a pod named bed-done on each node tells the guests to end.
KADM_NET=10.0.2
KADM_BRIDGE=jkgadm # kubeadm-cluster.sh's bridges (jkgadm0), apart from KubeadmE2EIT's jkadm
KADM_API_PORT=${JKUBELET_GUEST_KUBEADM_API_PORT:-16443}
KADM_STATE=''
kadm_kubectl() { "$BED_KUBECTL" --kubeconfig "$KADM_STATE/admin.conf" "$@"; }

kadm_down() {
  [ -n "$KADM_STATE" ] || return 0
  JKUBELET_KUBEADM_BRIDGE=$KADM_BRIDGE "$here/kubeadm-cluster.sh" down "$KADM_STATE" >"$KADM_STATE.down.log" 2>&1 || true
  KADM_STATE=''
}

# kadm_result DIR CHECK VERDICT DETAIL...: a result of this side's in guest DIR's timed log.
kadm_result() { host_result 1 "$@"; }

run_kubeadm_cluster() {
  local name=kubeadm-cluster g t0 deadline rc
  local dirs=("$work/$name-1" "$work/$name-2") pids=() link_port
  KADM_STATE=$work/kadm
  mkdir -p "$KADM_STATE"
  echo "guest: $name: kubeadm init on this machine (log: $KADM_STATE/kubeadm-init.log)" >&2
  if ! JKUBELET_KUBEADM_NODE_NET=$KADM_NET JKUBELET_KUBEADM_WORKER=0 JKUBELET_KUBEADM_BRIDGE=$KADM_BRIDGE \
    JKUBELET_KUBEADM_API_PORT=$KADM_API_PORT "$here/kubeadm-cluster.sh" up "$KADM_STATE" >/dev/null; then
    echo "guest: $name: kubeadm init on this machine failed" >&2
    status=2
    kadm_down
    return
  fi
  # The guests' own addresses, where the API server finds their kubelets.
  ip addr replace "$KADM_NET.15/32" dev ${KADM_BRIDGE}0
  ip addr replace "$KADM_NET.16/32" dev ${KADM_BRIDGE}0
  node_address_source "$KADM_NET.15" "${KADM_BRIDGE}0" "$KADM_NET.11"
  node_address_source "$KADM_NET.16" "${KADM_BRIDGE}0" "$KADM_NET.11"
  mkdir -p "$work/kadm-kube"
  "$BIN_KUBEADM" token create --print-join-command --kubeconfig "$KADM_STATE/admin.conf" \
    >"$work/kadm-kube/join"
  cp "$BIN_KUBEADM" "$work/kadm-kube/kubeadm"
  link_port=$((KADM_API_PORT + 100))
  for g in 1 2; do
    local src=$work/src-$name-$g
    rm -rf "$src"
    cp -a "$work/shared" "$src"
    cp -r "$work/kadm-kube" "$src/kube"
    {
      echo "SCENARIO=$name"
      echo "ROLE=$g"
      printf 'JKUBELET_GUEST_FLAGS=%q\n' "${JKUBELET_GUEST_FLAGS:-}"
    } >"$src/config.env"
    guest_new "${dirs[$g - 1]}" "$src"
  done
  for g in 1 2; do
    local fwd="hostfwd=tcp:$KADM_NET.$((14 + g)):10250-:10250,guestfwd=tcp:$KADM_NET.11:$KADM_API_PORT-cmd:socat - TCP:$KADM_NET.11:$KADM_API_PORT,,bind=$KADM_NET.11"
    [ "$g" = 1 ] || fwd="dhcpstart=$KADM_NET.16,$fwd"
    GUEST_HOSTFWD=$fwd GUEST_LINK_MAC=52:54:00:12:35:0$g \
      GUEST_LINK=$([ "$g" = 1 ] && echo "listen=127.0.0.1:$link_port" || echo "connect=127.0.0.1:$link_port") \
      guest_start "${dirs[$g - 1]}"
    pids+=("$GUEST_PID")
    # QEMU's socket netdev connects once, at its start, and runs on unlinked when nothing listens
    # yet: the second guest starts only once the first's QEMU listens (a probe would connect and
    # take the listener's one peer, so ss only looks).
    if [ "$g" = 1 ]; then
      for _ in $(seq 1 60); do
        ss -tln "sport = :$link_port" | grep -q LISTEN && break
        sleep 1
      done
    fi
  done
  for _ in $(seq 1 30); do
    ss -Htn state established "( sport = :$link_port or dport = :$link_port )" | grep -q . && break
    sleep 1
  done
  if ! ss -Htn state established "( sport = :$link_port or dport = :$link_port )" | grep -q .; then
    echo "guest: $name: the guests' link (socket netdev on 127.0.0.1:$link_port) did not connect" >&2
  fi
  t0=$(date +%s)
  # Both nodes Ready, or a guest gone (its scenario ended early: a failed join).
  deadline=$((t0 + TIMEOUT))
  rc=1
  while [ "$(date +%s)" -lt "$deadline" ]; do
    for g in 1 2; do guest_follow "${dirs[$g - 1]}"; done
    if [ "$(kadm_kubectl get nodes guest1 guest2 --no-headers 2>/dev/null | grep -c ' Ready ')" = 2 ]; then
      rc=0
      break
    fi
    guest_running "${pids[0]}" && guest_running "${pids[1]}" || { rc=2; break; }
    sleep 5
  done
  local d1=${dirs[0]}
  if [ $rc = 0 ]; then
    kadm_result "$d1" nodes-ready PASS "$(kadm_kubectl get nodes -o wide --no-headers | awk '{print $1 "=" $2 "@" $6}' | tr '\n' ' ')($(($(date +%s) - t0)) s after the guests' QEMUs started)"
    kadm_checks "$d1"
  else
    kadm_result "$d1" nodes-ready FAIL "$(kadm_kubectl get nodes --no-headers 2>&1 | tr '\n' ';') ($([ $rc = 1 ] && echo "timeout, $TIMEOUT s" || echo "a guest ended"))"
  fi
  # The guests end when they see their bed-done pod, or at the deadline: a short one when the
  # nodes never were both Ready (a guest that did not join waits for nothing that will come).
  local done_wait=1800
  [ $rc = 0 ] || done_wait=120
  for g in 1 2; do
    kadm_kubectl run "bed-done-guest$g" --image=jkubelet/busybox:1.35 --restart=Never \
      --overrides="{\"spec\": {\"nodeName\": \"guest$g\"}}" -- sleep 3600 >/dev/null 2>&1 || true
  done
  for g in 1 2; do
    guest_wait "${dirs[$g - 1]}" "${pids[$g - 1]}" '@@GB [0-9]+ [0-9.]+ DONE ' "$done_wait" || guest_stop "${pids[$g - 1]}"
    guest_wait_exit "${pids[$g - 1]}" 60 || guest_stop "${pids[$g - 1]}"
  done
  kadm_kubectl get nodes,pods,events -A -o wide >"$work/kadm-api-objects.txt" 2>&1 || true
  kadm_down
  local out pass=0 fail=0
  for g in 1 2; do
    out=$RESULTS/$name/guest$g
    rm -rf "$out"
    guest_results "${dirs[$g - 1]}" "$out"
    echo "== $name, guest$g: results (also in $out)"
    grep -E ' (FIGURE|RESULT) ' "${dirs[$g - 1]}/timed.log" | sed -E 's/^\[host \+([0-9]+)s\] @@GB ([0-9]+) ([0-9.]+|host) /host +\1 s, boot \2, uptime \3 s: /' || true
    pass=$((pass + $(grep -c ' RESULT [^ ]* [^ ]* PASS ' "${dirs[$g - 1]}/timed.log" || true)))
    fail=$((fail + $(grep -c ' RESULT [^ ]* [^ ]* FAIL ' "${dirs[$g - 1]}/timed.log" || true)))
  done
  cp "$work/kadm-api-objects.txt" "$KADM_STATE"/*.log "$RESULTS/$name/" 2>/dev/null || true
  echo "guest: $name: $pass passed, $fail failed" >&2
  [ "$fail" = 0 ] || [ $status -ne 0 ] || status=1
}

# kadm_checks DIR: the Deployment across both guests, and what reaches what.
kadm_checks() {
  local d=$1 pods n1 n2 ip1 ip2 p1 p2 out verdict
  kadm_kubectl apply -f "$root/deploy/guest/cluster/kubeadm-cluster.yaml" >&2
  for _ in $(seq 1 1200); do
    [ "$(kadm_kubectl get pods -l app=bed-web --no-headers 2>/dev/null | grep -c ' Running ')" = 2 ] && break
    for g in 1 2; do guest_follow "$work/kubeadm-cluster-$g"; done
    sleep 2
  done
  # A command that fails here is a check's FAIL, not the end of the script (set -e).
  pods=$(kadm_kubectl get pods -l app=bed-web -o json) || true
  read -r p1 n1 ip1 p2 n2 ip2 < <(jq -r '[.items[] | .metadata.name, .spec.nodeName, (.status.podIP // "-")] | join(" ")' <<<"$pods")
  [ "$(jq '[.items[] | select(.status.phase == "Running")] | length' <<<"$pods")" = 2 ] &&
    [ -n "$n1" ] && [ "$n1" != "$n2" ] && verdict=PASS || verdict=FAIL
  kadm_result "$d" deployment-on-both-guests "$verdict" "$p1 on $n1 ($ip1), $p2 on $n2 ($ip2)"
  [ "$verdict" = PASS ] || return 0
  # busybox's own timeout: Debian 12's static busybox 1.35 segfaults on `wget -T`.
  out=$(kadm_kubectl exec "$p1" -- timeout 20 wget -qO- "http://$ip2:8080/" 2>&1) || true
  [ "$out" = "$p2" ] && verdict=PASS || verdict=FAIL
  kadm_result "$d" "pod-to-pod:$n1-to-$n2" "$verdict" "kubectl exec $p1 -- wget http://$ip2:8080/: $out"
  out=$(kadm_kubectl exec "$p2" -- timeout 20 wget -qO- "http://$ip1:8080/" 2>&1) || true
  [ "$out" = "$p1" ] && verdict=PASS || verdict=FAIL
  kadm_result "$d" "pod-to-pod:$n2-to-$n1" "$verdict" "kubectl exec $p2 -- wget http://$ip1:8080/: $out"
  for p in "$p1" "$p2"; do
    out=$(kadm_kubectl logs "$p" 2>&1) || true
    case $out in *"serving $p"*) verdict=PASS ;; *) verdict=FAIL ;; esac
    kadm_result "$d" "kubectl-logs:$p" "$verdict" "$(echo "$out" | head -n 2 | tr '\n' ' ')"
  done
}
