# The test bed's scenarios, sourced by run.sh inside the guest at every boot. Each scenario_NAME
# reads $BOOT (1 on a fresh overlay) and ends the boot with finish or reboot_guest; it reports with
# step, figure and result (run.sh). $GB is the shared disk, $OUT its out/ directory, and
# config.env sets SCENARIO, JKUBELET_GUEST_FLAGS (extra flags for jkubelet, empty by default) and,
# for the cluster scenarios, EXPECTED_PODS (how many pods the control plane has for this node); their
# node credentials are in $GB/kube (guest-cluster.sh on the host).
# shellcheck shell=bash

READ_ONLY=http://127.0.0.1:10255
UNIT=jkubelet-standalone

# install_package: dpkg -i of the project's .deb, as an operator installs it.
install_package() {
  local deb
  deb=$(ls "$GB"/deb/*.deb 2>/dev/null | head -n 1)
  if [ -z "$deb" ]; then
    result package-installs FAIL "no .deb on the shared disk"
    return 1
  fi
  if dpkg -i "$deb" >"$OUT/dpkg.log" 2>&1; then
    result package-installs PASS "$(dpkg-query -W -f '${Package} ${Version}' jkubelet)"
  else
    result package-installs FAIL "$(tail -n 3 "$OUT/dpkg.log" | tr '\n' ' ')"
    return 1
  fi
}

# start_standalone: the README's first command (deploy/scripts/run-standalone.sh) on this host,
# with the installed package's launcher: its flags and nothing else, plus $JKUBELET_GUEST_FLAGS.
# Run as a transient unit, so that it sits in system.slice as a service would and its output is in
# the journal.
start_standalone() {
  mkdir -p /etc/jkubelet/manifests
  cp "$GB"/manifests/* /etc/jkubelet/manifests/
  JK_START=$(date +%s)
  # shellcheck disable=SC2086 # the extra flags are words
  systemd-run --unit="$UNIT" --description="jkubelet standalone (README's command)" \
    /usr/bin/jkubelet run --pod-manifest-path /etc/jkubelet/manifests \
    --read-only-port 10255 --pod-infra-container-image jkubelet/pause:3.2 \
    ${JKUBELET_GUEST_FLAGS:-} >>"$OUT/systemd-run.log" 2>&1
  step "started: jkubelet run ... ${JKUBELET_GUEST_FLAGS:-(no extra flags)}"
}

unit_state() { systemctl show -p ActiveState --value "$1" 2>/dev/null; }
pods() { curl -sf --max-time 10 "$READ_ONLY/pods"; }
answering_or_dead() {
  pods >/dev/null && return 0
  case $(unit_state "$UNIT") in failed | inactive) return 0 ;; esac
  # A unit with Restart=always (the package's) is never failed: it restarts.
  [ "$(systemctl show -p NRestarts --value "$UNIT" 2>/dev/null)" -gt 0 ] 2>/dev/null
}
# The pods this node should run: the control plane's (cluster scenarios), else the manifests'.
manifest_count() {
  if [ -n "${EXPECTED_PODS:-}" ]; then echo "$EXPECTED_PODS"; else ls /etc/jkubelet/manifests | wc -l; fi
}
# pods_check JQ_ARGS...: jq -e over /pods; false when jkubelet does not answer (bookworm's jq 1.6
# exits 0 with -e on no input at all).
pods_check() {
  local json
  json=$(pods) && [ -n "$json" ] || return 1
  jq -e "$@" <<<"$json" >/dev/null
}
all_running() {
  pods_check --argjson n "$(manifest_count)" \
    '(.items | length) >= $n and all(.items[]; .status.phase == "Running")'
}
# Every container of every pod has started at least once (running now, or terminated since).
all_started() {
  pods_check --argjson n "$(manifest_count)" '(.items | length) >= $n and all(.items[];
    (.status.containerStatuses // []) as $c | ($c | length) == (.spec.containers | length)
    and all($c[]; .state.running or .state.terminated or .lastState.terminated))'
}
# all_back: every pod has an IP and every container started during this boot. (Phase Running is no
# proof after a reboot: with restartPolicy Always a pod whose containers all exited is Running.)
all_back() {
  local booted
  booted=$(($(date +%s) - $(cut -d. -f1 /proc/uptime)))
  pods_check --argjson n "$(manifest_count)" --argjson b "$booted" '(.items | length) >= $n and
    all(.items[]; (.status.podIP // "") != "" and
      ((.status.containerStatuses // []) as $c | ($c | length) == (.spec.containers | length) and
        all($c[]; ([.state.running.startedAt, .state.terminated.startedAt,
          .lastState.terminated.startedAt] | map(select(. != null) | sub("\\.[0-9]+"; "")
          | fromdateiso8601) | max // 0) >= $b)))'
}
restarts() { # total container restarts of all pods
  pods | jq '[.items[].status.containerStatuses[]?.restartCount] | add // 0'
}
since() { echo $(($(date +%s) - $1)); }

# wait_for_standalone: waits for the read-only port or for jkubelet to exit; reports which.
# Returns 1 when jkubelet is not running.
wait_for_standalone() {
  # A JVM under TCG on a busy machine takes minutes to start: a generous deadline.
  wait_until 900 "jkubelet's /pods or its exit" answering_or_dead
  if pods >/dev/null; then
    figure "jkubelet-start-to-pods-answering $(since "$JK_START") s"
    result jkubelet-starts PASS "answering on the read-only port"
    return 0
  fi
  local code start end
  code=$(systemctl show -p ExecMainStatus --value "$UNIT")
  start=$(systemctl show -p ExecMainStartTimestampMonotonic --value "$UNIT")
  end=$(systemctl show -p ExecMainExitTimestampMonotonic --value "$UNIT")
  [ "${end:-0}" -gt 0 ] 2>/dev/null && figure "jkubelet-start-to-exit $(((end - start) / 1000000)) s"
  journalctl -u "$UNIT" -o short-monotonic --no-pager >"$OUT/jkubelet.journal" 2>&1
  result jkubelet-starts FAIL "state $(unit_state "$UNIT"), exit status $code," \
    "restarts $(systemctl show -p NRestarts --value "$UNIT"):" \
    "$(grep -iE 'misconfig|error|exception' "$OUT/jkubelet.journal" | head -n 2 | sed 's/^\[[ 0-9.]*\] [^ ]* [^ ]*: //' | tr '\n' ' ')"
  return 1
}

# wait_for_pods: pods Running, then every container started; figures from jkubelet's start and
# from boot (guest uptime).
# On a failure it keeps the kubelet's, Docker's and containerd's journals of this boot.
wait_for_pods() {
  if wait_until 900 "all pods Running" all_running; then
    figure "jkubelet-start-to-pods-running $(since "$JK_START") s (guest uptime $(up) s)"
  else
    result pods-running FAIL "$(pods | jq -c '[.items[] | {n: .metadata.name, p: .status.phase}]')"
    save_journals
    return 1
  fi
  if wait_until 300 "every container started" all_started; then
    figure "jkubelet-start-to-all-containers-started $(since "$JK_START") s"
    result pods-running PASS "$(pods | jq -r '[.items[] | .metadata.name + "=" + .status.phase] | join(" ")')"
  else
    result pods-running FAIL "not every container started"
    save_journals
    return 1
  fi
}
save_journals() {
  save journal journalctl -u "$UNIT" -b -o short-monotonic --no-pager
  save engine-journal journalctl -u docker -u containerd -b -o short-monotonic --no-pager
}

# Quantities of the manifests' limits: bytes of a memory quantity, millicores of a cpu quantity.
qty_bytes() {
  awk -v q="$1" 'BEGIN { n = q + 0; u = q; sub(/^[0-9.]+/, "", u)
    m["Ki"] = 1024; m["Mi"] = 1048576; m["Gi"] = 1073741824; m["Ti"] = 1099511627776
    m["k"] = 1e3; m["K"] = 1e3; m["M"] = 1e6; m["G"] = 1e9; m["T"] = 1e12; m[""] = 1
    printf "%.0f\n", n * m[u] }'
}
qty_milli() { awk -v q="$1" 'BEGIN { if (q ~ /m$/) printf "%.0f\n", q + 0; else printf "%.0f\n", q * 1000 }'; }

# kubepods_dir: the node-level cgroup jkubelet made (systemd driver: kubepods.slice).
kubepods_dir() {
  local d
  for d in /sys/fs/cgroup/kubepods.slice /sys/fs/cgroup/kubepods; do
    [ -d "$d" ] && { echo "$d"; return 0; }
  done
  return 1
}
cg() { cat "$1" 2>/dev/null || echo missing; }
# unit_of DIR: the systemd unit of a cgroup directory (a slice's name), or empty.
unit_of() { case $(basename "$1") in *.slice | *.scope) basename "$1" ;; esac; }
show() { systemctl show "$1" -p "$2" --value 2>/dev/null; }

# read_limits LABEL: every node and pod limit from /sys/fs/cgroup and from systemctl show, each a
# result line; LABEL says when (e.g. after-start).
read_limits() {
  local label=$1 kp v unit memtotal
  kp=$(kubepods_dir) || { result "$label:kubepods" FAIL "no kubepods cgroup under /sys/fs/cgroup"; return; }
  find "$kp" \( -name memory.max -o -name cpu.max -o -name pids.max -o -name cpu.weight \) \
    -exec grep -H . {} + >"$OUT/boot$BOOT-cgroups-$label" 2>&1
  memtotal=$(awk '/^MemTotal:/ {printf "%.0f\n", $2 * 1024}' /proc/meminfo)
  v=$(cg "$kp/memory.max")
  [ "$v" != max ] && [ "$v" != missing ] && verdict=PASS || verdict=FAIL
  result "$label:node:memory.max" $verdict "$kp/memory.max=$v (MemTotal $memtotal)"
  v=$(cg "$kp/pids.max")
  [ "$v" != max ] && [ "$v" != missing ] && verdict=PASS || verdict=FAIL
  result "$label:node:pids.max" $verdict "$kp/pids.max=$v"
  unit=$(unit_of "$kp")
  if [ -n "$unit" ]; then
    v="MemoryMax=$(show "$unit" MemoryMax) TasksMax=$(show "$unit" TasksMax)"
    case $v in *MemoryMax=infinity*) verdict=FAIL ;; *) verdict=PASS ;; esac
    result "$label:node:systemctl" $verdict "$unit $v"
  fi
  local json uid name dir mem cpu exp_mem exp_cpu
  json=$(pods)
  while IFS=$'\t' read -r uid name mem cpu; do
    dir=$(find "$kp" -maxdepth 2 -type d \( -name "*pod$uid*" -o -name "*pod${uid//-/_}*" \) | head -n 1)
    if [ -z "$dir" ]; then
      result "$label:pod:$name" FAIL "no cgroup for pod $uid under $kp"
      continue
    fi
    exp_mem=max exp_cpu="max 100000"
    [ "$mem" != - ] && exp_mem=$(qty_bytes "$mem")
    [ "$cpu" != - ] && exp_cpu="$(($(qty_milli "$cpu") * 100)) 100000"
    v=$(cg "$dir/memory.max")
    [ "$v" = "$exp_mem" ] && verdict=PASS || verdict=FAIL
    result "$label:pod:$name:memory.max" $verdict "$v (expected $exp_mem) in ${dir#/sys/fs/cgroup}"
    v=$(cg "$dir/cpu.max")
    [ "$v" = "$exp_cpu" ] && verdict=PASS || verdict=FAIL
    result "$label:pod:$name:cpu.max" $verdict "$v (expected $exp_cpu)"
    unit=$(unit_of "$dir")
    if [ -n "$unit" ]; then
      v="MemoryMax=$(show "$unit" MemoryMax) CPUQuotaPerSecUSec=$(show "$unit" CPUQuotaPerSecUSec)"
      if [ "$exp_mem" = max ]; then
        verdict=INFO
      else
        case $v in "MemoryMax=$exp_mem "*) verdict=PASS ;; *) verdict=FAIL ;; esac
      fi
      result "$label:pod:$name:systemctl" $verdict "$unit $v"
    fi
    local scopes
    scopes=$(for s in "$dir"/*.scope; do [ -d "$s" ] && echo "$(basename "$s" | cut -c1-19)=$(cg "$s/memory.max")"; done | tr '\n' ' ')
    result "$label:pod:$name:containers" INFO "${scopes:-no container scopes}"
  done < <(echo "$json" | jq -r '.items[] | [.metadata.uid, .metadata.name,
    (if all(.spec.containers[]; .resources.limits.memory) then
      ([.spec.containers[].resources.limits.memory] | join("+")) else "-" end),
    (if all(.spec.containers[]; .resources.limits.cpu) then
      ([.spec.containers[].resources.limits.cpu] | join("+")) else "-" end)] | @tsv' |
    while IFS=$'\t' read -r u n m c; do
      # Sums of several containers' limits: added here, in the units the kernel uses.
      if [ "$m" != - ]; then m=$(IFS=+; t=0; for q in $m; do t=$((t + $(qty_bytes "$q"))); done; echo $t); fi
      if [ "$c" != - ]; then c=$(IFS=+; t=0; for q in $c; do t=$((t + $(qty_milli "$q"))); done; echo "${t}m"); fi
      printf '%s\t%s\t%s\t%s\n' "$u" "$n" "$m" "$c"
    done)
}

# ---------------------------------------------------------------------------------------------
# stock-host: the package installed on a stock Debian 12 host, then the README's standalone
# command with no extra flag. Passes when the pods run and every node and pod limit read from
# /sys/fs/cgroup (and from systemctl show) is still in place after all containers started, again
# after the crash-looping pod's container was started anew, after `systemctl daemon-reload`, and
# after jkubelet's unit was restarted (it adopts its slices and pods: no pod is started anew).
scenario_stock_host() {
  install_package || finish
  start_standalone
  wait_for_standalone || finish
  wait_for_pods || finish
  figure "boot-to-pods-running (guest uptime) $(up) s"
  read_limits after-start
  local before
  before=$(restarts)
  restarted() { [ "$(restarts)" -gt "$before" ]; }
  if wait_until 180 "a container restart (crashloop)" restarted; then
    read_limits after-restart
  fi
  systemctl daemon-reload
  step "systemctl daemon-reload"
  read_limits after-daemon-reload
  local sandboxes
  sandboxes=$(docker ps -q --filter label=io.kubernetes.docker.type=podsandbox | sort | tr '\n' ' ')
  JK_START=$(date +%s)
  systemctl restart "$UNIT" >>"$OUT/systemctl.log" 2>&1
  step "systemctl restart $UNIT"
  if wait_for_standalone && wait_until 600 "all pods Running after the restart" all_running; then
    figure "restart-to-pods-running $(since "$JK_START") s"
    local now
    now=$(docker ps -q --filter label=io.kubernetes.docker.type=podsandbox | sort | tr '\n' ' ')
    [ "$now" = "$sandboxes" ] && verdict=PASS || verdict=FAIL
    result after-kubelet-restart:sandboxes-adopted $verdict "before: $sandboxes; after: $now"
    read_limits after-kubelet-restart
  else
    result after-kubelet-restart:pods-running FAIL "$(pods | jq -c '[.items[] | {n: .metadata.name, p: .status.phase}]' 2>/dev/null)"
  fi
  save journal journalctl -u "$UNIT" -o short-monotonic --no-pager
  save pods pods
}

# ---------------------------------------------------------------------------------------------
# reboot: kubelet.service from the package, enabled, in standalone mode on a CNI bridge
# (host-local IPAM, so the addresses are files in /var/lib/cni/networks/bed/), then
# $JKUBELET_GUEST_REBOOTS reboots (default 5) of the same overlay while the pods run. At every boot after
# the first: the time from boot until the pods are Running again through the unit, and the
# addresses in the IP store that no running pod holds (leaked). Passes when none leaked after the
# last reboot.
REBOOT_NET=/var/lib/cni/networks/bed
# write_cni_conf: a CNI bridge with host-local IPAM, Debian's plugins.
write_cni_conf() {
  mkdir -p /etc/cni/net.d
  cat >/etc/cni/net.d/10-bed.conflist <<'CNI'
{"cniVersion": "0.4.0", "name": "bed", "plugins": [
  {"type": "bridge", "bridge": "cni0", "isGateway": true, "ipMasq": true,
   "ipam": {"type": "host-local", "ranges": [[{"subnet": "10.244.0.0/24"}]],
            "routes": [{"dst": "0.0.0.0/0"}]}},
  {"type": "portmap", "capabilities": {"portMappings": true}}]}
CNI
}
write_standalone_unit() {
  mkdir -p /etc/jkubelet/manifests /etc/systemd/system/kubelet.service.d
  cp "$GB"/manifests/* /etc/jkubelet/manifests/
  write_cni_conf
  # The package's unit runs kubeadm's command line; an operator without a cluster replaces it.
  # The node's name and root dir are the package's defaults: the kernel's host name, which needs no
  # resolution (on 28 November jkubelet resolved it and exited at once on a stock host, whose name
  # does not resolve), and /var/lib/kubelet.
  cat >/etc/systemd/system/kubelet.service.d/20-standalone.conf <<UNIT
[Service]
ExecStart=
ExecStart=${KUBELET_BIN:-/usr/bin/kubelet} --pod-manifest-path=/etc/jkubelet/manifests --read-only-port=10255 --pod-infra-container-image=jkubelet/pause:3.2 --network-plugin=cni --cni-bin-dir=/usr/lib/cni --cni-conf-dir=/etc/cni/net.d ${JKUBELET_GUEST_FLAGS:-}
UNIT
  systemctl daemon-reload
}
# enable_standalone_unit: the package installed, its unit (standalone, as written above) enabled
# and started, and the pods Running; ends the scenario when one of these fails.
enable_standalone_unit() {
  install_package || finish
  write_standalone_unit
  JK_START=$(date +%s)
  systemctl enable --now kubelet >>"$OUT/systemctl.log" 2>&1
  step "systemctl enable --now kubelet ${JKUBELET_GUEST_FLAGS:-(no extra flags)}"
  wait_for_standalone || finish
  wait_for_pods || finish
}
# leaked_ips: addresses in the IP store that no pod of /pods holds.
leaked_ips() {
  local json held
  json=$(pods) && [ -n "$json" ] || { echo "unknown: jkubelet does not answer"; return; }
  held=$(jq -r '.items[].status.podIP // empty' <<<"$json")
  find "$REBOOT_NET" -maxdepth 1 -type f -name '[0-9]*' -printf '%f\n' 2>/dev/null | grep -vxF -f <(echo "${held:-none}") || true
}
scenario_reboot() {
  local reboots=${JKUBELET_GUEST_REBOOTS:-5} leaked
  UNIT=kubelet
  if [ "$BOOT" -eq 1 ]; then
    enable_standalone_unit
    figure "boot-to-pods-running (guest uptime) $(up) s"
    save ips bash -c "ls $REBOOT_NET"
    reboot_guest
  fi
  # Boot 2 and later: the unit brings jkubelet back; the clock starts at the kernel's.
  local uptime
  uptime=$(up)
  JK_START=$(($(date +%s) - ${uptime%.*}))
  if wait_until 900 "pods back after reboot $((BOOT - 1))" all_back; then
    figure "reboot-$((BOOT - 1))-boot-to-pods-back (an IP each, every container started anew; guest uptime) $(up) s"
  else
    result "reboot-$((BOOT - 1)):pods-running" FAIL "$(pods | jq -c '[.items[] | {n: .metadata.name, p: .status.phase}]' 2>/dev/null)"
    save journal journalctl -u kubelet -b -o short-monotonic --no-pager
    finish
  fi
  # Dead sandboxes' addresses may be released by jkubelet's housekeeping a little later: up to 3
  # minutes for the store to hold only the running pods' addresses.
  no_leak() { [ -z "$(leaked_ips)" ]; }
  wait_until 180 "the IP store to hold only running pods' addresses" no_leak || true
  leaked=$(leaked_ips)
  save ips bash -c "ls $REBOOT_NET; echo; curl -s $READ_ONLY/pods | jq -r '.items[] | .metadata.name + \" \" + (.status.podIP // \"\")'"
  result "reboot-$((BOOT - 1)):leaked-ips" INFO "$(echo "$leaked" | grep -c . || true) leaked: $(echo $leaked)"
  if [ $((BOOT - 1)) -lt "$reboots" ]; then
    reboot_guest
  fi
  [ -z "$leaked" ] && verdict=PASS || verdict=FAIL
  result leaked-ips-after-reboots $verdict "$(echo "$leaked" | grep -c . || true) addresses in $REBOOT_NET held by no pod after $reboots reboots"
  read_limits after-reboots
  save journal journalctl -u kubelet -b -o short-monotonic --no-pager
}

# ---------------------------------------------------------------------------------------------
# Cluster scenarios: the guest is a node of the control plane that guest-cluster.sh runs on the
# host. enable_cluster_unit [CONFIG_LINE...]: the package installed, and its unit as kubeadm's join
# leaves it: the node's kubeconfig (/etc/kubernetes/kubelet.conf) and client certificate
# (/var/lib/kubelet/pki/kubelet-client-current.pem), /var/lib/kubelet/config.yaml (x509 and webhook
# authentication, Webhook authorization, the read-only port this bed reads, and the lines given),
# kubeadm-flags.env (CNI, the pause image), and the package's own drop-in unchanged; enabled and
# started. Ends the scenario when jkubelet does not answer.
enable_cluster_unit() {
  install_package || finish
  mkdir -p /etc/kubernetes/pki /var/lib/kubelet/pki
  install -m 0644 "$GB/kube/ca.crt" /etc/kubernetes/pki/ca.crt
  install -m 0600 "$GB/kube/kubelet-client-current.pem" /var/lib/kubelet/pki/kubelet-client-current.pem
  install -m 0600 "$GB/kube/kubelet.conf" /etc/kubernetes/kubelet.conf
  write_cni_conf
  {
    printf '%s\n' 'apiVersion: kubelet.config.k8s.io/v1beta1' 'kind: KubeletConfiguration' \
      'authentication: {x509: {clientCAFile: /etc/kubernetes/pki/ca.crt}, webhook: {enabled: true}, anonymous: {enabled: false}}' \
      'authorization: {mode: Webhook}' 'readOnlyPort: 10255'
    printf '%s\n' "$@"
  } >/var/lib/kubelet/config.yaml
  echo "KUBELET_KUBEADM_ARGS=\"--network-plugin=cni --cni-bin-dir=/usr/lib/cni --pod-infra-container-image=jkubelet/pause:3.2 ${JKUBELET_GUEST_FLAGS:-}\"" \
    >/var/lib/kubelet/kubeadm-flags.env
  JK_START=$(date +%s)
  systemctl enable --now kubelet >>"$OUT/systemctl.log" 2>&1
  step "systemctl enable --now kubelet: kubeadm's layout, the API server at" \
    "$(sed -n 's/.*server: "\([^"]*\)".*/\1/p' /etc/kubernetes/kubelet.conf)"
  wait_for_standalone || { save journal journalctl -u kubelet -o short-monotonic --no-pager; finish; }
}

# ---------------------------------------------------------------------------------------------
# shutdown: graceful node shutdown through logind, on a node of the bed's control plane, with
# shutdownGracePeriod 120s and shutdownGracePeriodCriticalPods 40s in the kubelet's config file
# (rather than a real node's 30s and 10s: under TCG each of Docker's stops takes seconds and a
# pod's CNI DEL up to 18 s; with 60s and 20s the manager took 65 s on 29 Nov), and the three
# pods of deploy/guest/cluster/shutdown.yaml, which log the guest's uptime to the shared disk on
# SIGTERM and on their exit. Boot 1 checks the logind side (the drop-in raising
# InhibitDelayMaxSec, the delay lock listed), then `systemctl poweroff`; while the guest is off
# the host reads the pods' final statuses and the node's NotReady at the API server; boot 2 reads
# the pods' log and the journal of boot 1 (made persistent first): the shutdown seen, the critical
# pod stopped after the others, all within the grace period and before systemd stopped kubelet.
SHUTDOWN_GRACE=120
SHUTDOWN_GRACE_CRITICAL=40
# mono LOGFILE PATTERN: the monotonic seconds of the first journal line matching PATTERN.
mono() { grep -m1 -E "$2" "$1" | sed -E 's/^\[ *([0-9.]+)\].*/\1/'; }
# stop_at POD KIND: the guest uptime of POD's first KIND (TERM or EXIT) line in stops.log.
stop_at() { awk -v p="$1" -v k="$2" '$2 == p && $3 == k { print $1; exit }' "$OUT/stops.log" 2>/dev/null; }
scenario_shutdown() {
  UNIT=kubelet
  if [ "$BOOT" -eq 1 ]; then
    # Boot 1's journal is read on boot 2: persistent storage for it.
    mkdir -p /var/log/journal && systemctl restart systemd-journald
    enable_cluster_unit "shutdownGracePeriod: ${SHUTDOWN_GRACE}s" \
      "shutdownGracePeriodCriticalPods: ${SHUTDOWN_GRACE_CRITICAL}s"
    wait_for_pods || finish
    local delay dropin
    delay=$(busctl get-property org.freedesktop.login1 /org/freedesktop/login1 \
      org.freedesktop.login1.Manager InhibitDelayMaxUSec 2>&1)
    dropin=$(cat /etc/systemd/logind.conf.d/99-kubelet.conf 2>&1 | tr '\n' ' ')
    [ "$delay" = "t ${SHUTDOWN_GRACE}000000" ] && verdict=PASS || verdict=FAIL
    result logind-delay-raised $verdict "InhibitDelayMaxUSec: $delay; 99-kubelet.conf: $dropin"
    save inhibitors systemd-inhibit --list --no-pager
    grep -q 'kubelet.*Kubelet needs time to handle node shutdown.*delay' "$OUT/boot1-inhibitors" &&
      verdict=PASS || verdict=FAIL
    result delay-lock-held $verdict "$(grep kubelet "$OUT/boot1-inhibitors" | tr -s ' ')"
    mark REBOOT "$SCENARIO: systemctl poweroff at uptime $(up) s"
    echo "$(up)" >"$OUT/poweroff-uptime"
    sync
    systemctl --no-block poweroff
    exit 0
  fi
  local j=$OUT/boot1-journal t0 tstart tdone tstop
  journalctl -b -1 -o short-monotonic --no-pager >"$j" 2>&1
  grep -E 'Shutdown manager|logind|Stopping kubelet|Delay lock|powering' "$j" >"$OUT/shutdown-lines" || true
  save stops cat "$OUT/stops.log"
  t0=$(cat "$OUT/poweroff-uptime")
  tstart=$(mono "$j" 'Shutdown manager processing shutdown event')
  tdone=$(mono "$j" 'Shutdown manager completed processing shutdown event')
  tstop=$(mono "$j" 'Stopping kubelet.service|Stopping .*[Kk]ubelet')
  [ -n "$tstart" ] && verdict=PASS || verdict=FAIL
  result prepare-for-shutdown-seen $verdict "poweroff at $t0 s, the manager's event at ${tstart:-none} s"
  awk -v a="$t0" -v b="$tdone" -v g="$SHUTDOWN_GRACE" 'BEGIN { exit !(b != "" && b - a <= g + 2) }' && verdict=PASS || verdict=FAIL
  result pods-stopped-within-grace $verdict "completed at ${tdone:-none} s, $(awk -v a="$t0" -v b="$tdone" 'BEGIN { printf "%.1f", b - a }') s after poweroff (shutdownGracePeriod ${SHUTDOWN_GRACE}s)"
  awk -v a="$tdone" -v b="$tstop" 'BEGIN { exit !(a != "" && b != "" && b >= a) }' && verdict=PASS || verdict=FAIL
  result lock-released-before-kubelet-stopped $verdict "manager done ${tdone:-none} s, systemd stopped kubelet at ${tstop:-none} s"
  local quick slow crit
  quick=$(stop_at shutdown-quick TERM) slow=$(stop_at shutdown-slow TERM) crit=$(stop_at shutdown-critical TERM)
  [ -n "$quick" ] && [ -n "$slow" ] && [ -n "$crit" ] && verdict=PASS || verdict=FAIL
  result pods-got-sigterm $verdict "$(tr '\n' ';' <"$OUT/stops.log" 2>/dev/null)"
  [ -n "$(stop_at shutdown-quick EXIT)" ] && verdict=PASS || verdict=FAIL
  result quick-pod-exited-in-its-own-grace $verdict "$(grep shutdown-quick "$OUT/stops.log" 2>/dev/null | tr '\n' ';')"
  # The slow pod ignores TERM for 90 s: the window for pods that are not critical (80 s) ends it,
  # and only then may the critical pod get its TERM.
  awk -v c="$crit" -v s="$slow" 'BEGIN { exit !(c != "" && s != "" && c - s >= 30) }' && verdict=PASS || verdict=FAIL
  result critical-last $verdict "critical TERM at ${crit:-none} s, $(awk -v c="$crit" -v s="$slow" 'BEGIN { printf "%.1f", c - s }') s after the slow pod's TERM (its window: $((SHUTDOWN_GRACE - SHUTDOWN_GRACE_CRITICAL)) s); $(grep -oE 'killing pod [^ ]+ with gracePeriod: [0-9]+' "$j" | sed 's/killing pod //' | tr '\n' ';')"
  [ -z "$(stop_at shutdown-slow EXIT)" ] && verdict=PASS || verdict=FAIL
  result slow-pod-cut-short $verdict "$(grep shutdown-slow "$OUT/stops.log" 2>/dev/null | tr '\n' ';')"
}

# ---------------------------------------------------------------------------------------------
# service: kubelet.service from the package as a service manager treats it (standalone, as reboot's
# unit). `systemctl stop kubelet` leaves the pods' containers running; `systemctl start kubelet`
# adopts them (the same sandboxes and containers, no restart counted); jkubelet's log is in the
# journal; `kill -9` of its main process brings it back through Restart=always, with the same
# containers again. The crashloop example restarts on its own, so its containers are left out.
steady_containers() { # the running containers of every pod but crashloop's, sorted
  docker ps --filter label=io.kubernetes.docker.type=container \
    --format '{{.ID}} {{.Label "io.kubernetes.pod.name"}}' | grep -v ' crashloop' | sort | tr '\n' ' '
}
steady_restarts() { # restarts of every pod but crashloop's
  pods | jq '[.items[] | select(.metadata.name | startswith("crashloop") | not)
    | .status.containerStatuses[]?.restartCount] | add // 0'
}
sandboxes() { docker ps -q --filter label=io.kubernetes.docker.type=podsandbox | sort | tr '\n' ' '; }
scenario_service() {
  UNIT=kubelet
  enable_standalone_unit
  local boxes containers restarts_before now pid npid nrestarts
  boxes=$(sandboxes)
  containers=$(steady_containers)
  restarts_before=$(steady_restarts)
  # stop: the unit's processes end; the pods' containers (in Docker's cgroups) run on.
  systemctl stop kubelet >>"$OUT/systemctl.log" 2>&1
  step "systemctl stop kubelet"
  [ "$(unit_state kubelet)" = inactive ] && verdict=PASS || verdict=FAIL
  result stop:unit-inactive $verdict "ActiveState $(unit_state kubelet)"
  stopped_long_enough() { [ "$(since "$STOPPED")" -ge 20 ]; }
  STOPPED=$(date +%s)
  wait_until 60 "20 s with kubelet stopped" stopped_long_enough || true
  now=$(steady_containers)
  [ -n "$containers" ] && [ "$now" = "$containers" ] && verdict=PASS || verdict=FAIL
  result stop:pods-keep-running $verdict "before: $containers; 20 s after the stop: $now"
  # start: the same sandboxes and containers, adopted.
  JK_START=$(date +%s)
  systemctl start kubelet >>"$OUT/systemctl.log" 2>&1
  step "systemctl start kubelet"
  if wait_for_standalone && wait_until 600 "all pods Running after the start" all_running; then
    figure "start-to-pods-running $(since "$JK_START") s"
    now="$(sandboxes)|$(steady_containers)|$(steady_restarts)"
    [ "$now" = "$boxes|$containers|$restarts_before" ] && verdict=PASS || verdict=FAIL
    result start:pods-adopted $verdict "sandboxes|containers|restarts before: $boxes|$containers|$restarts_before; after: $now"
  else
    result start:pods-running FAIL "$(pods | jq -c '[.items[] | {n: .metadata.name, p: .status.phase}]' 2>/dev/null)"
  fi
  # The journal: jkubelet's own log lines under the unit, from both runs.
  save journal journalctl -u kubelet -o short-monotonic --no-pager
  local lines
  lines=$(grep -c 'ContainerManager: cgroup driver' "$OUT/boot1-journal" 2>/dev/null || true)
  [ "${lines:-0}" -ge 2 ] && verdict=PASS || verdict=FAIL
  result journal-has-the-log $verdict "$lines starts logged ('ContainerManager: cgroup driver ...') in journalctl -u kubelet"
  # kill -9: Restart=always (RestartSec=10) starts it again; the containers are adopted again.
  pid=$(systemctl show -p MainPID --value kubelet)
  nrestarts=$(systemctl show -p NRestarts --value kubelet)
  JK_START=$(date +%s)
  kill -9 "$pid"
  step "kill -9 $pid (kubelet's main process)"
  back() { npid=$(systemctl show -p MainPID --value kubelet); [ "${npid:-0}" -gt 0 ] && [ "$npid" != "$pid" ] && pods >/dev/null; }
  if wait_until 900 "kubelet back after kill -9" back && wait_until 600 "all pods Running after kill -9" all_running; then
    figure "kill-9-to-pods-answering-and-running $(since "$JK_START") s"
    now="$(sandboxes)|$(steady_containers)|$(steady_restarts)"
    [ "$(systemctl show -p NRestarts --value kubelet)" -gt "$nrestarts" ] && [ "$now" = "$boxes|$containers|$restarts_before" ] && verdict=PASS || verdict=FAIL
    result kill-9:restarted-and-adopted $verdict "NRestarts $nrestarts -> $(systemctl show -p NRestarts --value kubelet), MainPID $pid -> $npid; after: $now"
  else
    result kill-9:restarted-and-adopted FAIL "state $(unit_state kubelet), NRestarts $(systemctl show -p NRestarts --value kubelet)"
  fi
  save journal journalctl -u kubelet -o short-monotonic --no-pager
}

# ---------------------------------------------------------------------------------------------
# upstream-side-by-side: the reboot scenario with the upstream kubelet v1.20.2 (the reference
# binary deploy/scripts/kubelet-ref.sh builds from the same tree as the control plane, copied onto
# the shared disk) in jkubelet's place, under the package's kubelet.service and the same drop-in,
# so that each of reboot's figures has upstream's beside it. Upstream v1.20 takes no cgroup driver
# from Docker: on a stock host it needs --cgroup-driver=systemd, which the drop-in gives it.
# Upstream v1.20 has no graceful shutdown. The checks keep reboot's names ("jkubelet-starts" is
# the upstream kubelet's start here).
scenario_upstream_side_by_side() {
  KUBELET_BIN=/usr/local/bin/kubelet-ref
  if [ "$BOOT" -eq 1 ]; then
    install -m 0755 "$GB/kubelet-ref" "$KUBELET_BIN" ||
      { result upstream-binary FAIL "no kubelet-ref on the shared disk"; finish; }
    result upstream-binary INFO "$("$KUBELET_BIN" --version 2>&1)"
  fi
  JKUBELET_GUEST_FLAGS="--cgroup-driver=systemd ${JKUBELET_GUEST_FLAGS:-}"
  scenario_reboot
}

# ---------------------------------------------------------------------------------------------
# memory-pressure: eviction on cgroup v2, on a node of the bed's control plane, with evictionHard
# memory.available<1Gi in the kubelet's config file and the pods of
# deploy/guest/cluster/memory-pressure.yaml: a BestEffort pod that grows by 32 MiB a second, and
# a Guaranteed and a Burstable one that stay small. The BestEffort pod must be evicted (Failed,
# reason Evicted) and the others keep running with no restart. The host checks the same at the
# API server, with the node's MemoryPressure, the Evicted event, and kubectl logs and exec through
# the API server (its exec leaves a file in the guaranteed pod, which this side waits for).
pod_field() { # NAME JQ: JQ over pod NAME of /pods
  pods | jq -r --arg n "$1" ".items[] | select(.metadata.name == \$n) | $2"
}
scenario_memory_pressure() {
  UNIT=kubelet
  enable_cluster_unit 'evictionHard: {memory.available: 1Gi}' 'evictionPressureTransitionPeriod: 30s'
  save meminfo-start cat /proc/meminfo
  evicted() { [ "$(pod_field hog '.status.phase + "/" + (.status.reason // "")')" = Failed/Evicted ]; }
  if wait_until 1200 "the BestEffort pod evicted" evicted; then
    figure "jkubelet-start-to-besteffort-evicted $(since "$JK_START") s"
    result besteffort-evicted PASS "hog: $(pod_field hog '.status.message')"
  else
    result besteffort-evicted FAIL "hog: $(pod_field hog '.status.phase + "/" + (.status.reason // "") + ", restarts " + ([.status.containerStatuses[]?.restartCount] | add // 0 | tostring)')"
  fi
  save meminfo-after cat /proc/meminfo
  local p st
  for p in guaranteed burstable; do
    st=$(pod_field $p '.status.phase + " restarts " + ([.status.containerStatuses[]?.restartCount] | add // 0 | tostring) + " qos " + .status.qosClass')
    case $st in "Running restarts 0 "*) verdict=PASS ;; *) verdict=FAIL ;; esac
    result "$p-kept" $verdict "$p: $st"
  done
  # The host's kubectl exec (through the API server to this kubelet) touches a file in the pod.
  exec_seen() {
    local c
    c=$(docker ps -q --filter label=io.kubernetes.pod.name=guaranteed --filter label=io.kubernetes.docker.type=container | head -n 1)
    [ -n "$c" ] && docker exec "$c" test -f /tmp/exec-from-the-api-server
  }
  wait_until 600 "the host's kubectl exec" exec_seen && verdict=PASS || verdict=FAIL
  result exec-from-the-api-server-arrived $verdict "/tmp/exec-from-the-api-server in the guaranteed pod's container"
  save stats curl -s "$READ_ONLY/stats/summary"
  save pods pods
  save journal journalctl -u kubelet -o short-monotonic --no-pager
}

# ---------------------------------------------------------------------------------------------
# kubeadm-cluster: this guest joins a cluster that `kubeadm init` made on the host
# (guest-cluster.sh, run_kubeadm_cluster), as an operator follows kubeadm's install guide on a
# stock host: its own host name (guest$ROLE), the link to the other guest and the route to its pod
# subnet in systemd-networkd, br_netfilter and the sysctls kubeadm's preflight wants, the package
# installed, kubeadm (the host's v1.20.2 binary, as Debian's kubeadm package would put it), a CNI
# bridge on this guest's pod subnet (10.244.$ROLE.0/24, routed, not masqueraded), forwarding of pod
# traffic past Docker's FORWARD policy, and the pause image under kubeadm's name (no registry is
# reachable). Then `kubeadm join` with the host's token and nothing else: the package's unit,
# kubeadm's drop-in and the kubelet config kubeadm downloads. The second guest joins once the
# first's kubelet answers over the link, so that the two TCG guests do not start their JVMs at
# once. The host checks the cluster; its pod bed-done-guest$ROLE on this node ends the scenario.
scenario_kubeadm_cluster() {
  local me=$ROLE other=$((3 - ROLE)) mac nic
  UNIT=kubelet
  hostnamectl set-hostname "guest$me"
  printf '127.0.1.1\tguest%s\n' "$me" >>/etc/hosts
  mac=52:54:00:12:35:0$me
  cat >/etc/systemd/network/05-bed-link.network <<NET
[Match]
MACAddress=$mac

[Network]
Address=192.168.251.$me/24

[Route]
Destination=10.244.$other.0/24
Gateway=192.168.251.$other
NET
  networkctl reload
  nic=$(ip -o link | awk -v m="$mac" 'index($0, m) { sub(":", "", $2); print $2; exit }')
  has_link_address() { ip -4 addr show dev "$nic" 2>/dev/null | grep -q "192.168.251.$me/"; }
  wait_until 60 "the link's address" has_link_address || true
  step "host name guest$me; link $nic 192.168.251.$me; route to 10.244.$other.0/24"
  modprobe br_netfilter
  sysctl -qw net.bridge.bridge-nf-call-iptables=1 net.ipv4.ip_forward=1
  iptables -I FORWARD -s 10.244.0.0/16 -j ACCEPT
  iptables -I FORWARD -d 10.244.0.0/16 -j ACCEPT
  install_package || finish
  systemctl enable kubelet >>"$OUT/systemctl.log" 2>&1 # kubeadm's guide; join starts it
  install -m 0755 "$GB/kube/kubeadm" /usr/bin/kubeadm
  docker tag jkubelet/pause:3.2 k8s.gcr.io/pause:3.2
  mkdir -p /etc/cni/net.d
  cat >/etc/cni/net.d/10-bed.conflist <<CNI
{"cniVersion": "0.4.0", "name": "bed", "plugins": [
  {"type": "bridge", "bridge": "cni0", "isGateway": true, "ipMasq": false,
   "ipam": {"type": "host-local", "ranges": [[{"subnet": "10.244.$me.0/24"}]],
            "routes": [{"dst": "0.0.0.0/0"}]}},
  {"type": "portmap", "capabilities": {"portMappings": true}}]}
CNI
  if [ "$me" = 2 ]; then
    first_joined() { timeout 5 bash -c 'exec 3<>/dev/tcp/192.168.251.1/10250' 2>/dev/null; }
    wait_until 2400 "guest1's kubelet over the link" first_joined &&
      result link-reaches-guest1 PASS "192.168.251.1:10250 answers" ||
      result link-reaches-guest1 FAIL "192.168.251.1:10250 does not answer"
  fi
  local t0 rc
  t0=$(date +%s)
  step "kubeadm join (the host's token)"
  # shellcheck disable=SC2046 # the join command's words
  kubeadm $(sed 's/^kubeadm //' "$GB/kube/join") >"$OUT/kubeadm-join.log" 2>&1
  rc=$?
  figure "kubeadm-join $(since "$t0") s, exit $rc"
  if [ $rc = 0 ]; then
    result kubeadm-join PASS "$(grep -m1 'This node has joined' "$OUT/kubeadm-join.log")"
  else
    result kubeadm-join FAIL "$(grep -E 'ERROR|error' "$OUT/kubeadm-join.log" | head -n 3 | tr '\n' ' ')"
    save journal journalctl -u kubelet -o short-monotonic --no-pager
    finish
  fi
  save kubeadm-flags cat /var/lib/kubelet/kubeadm-flags.env
  done_pod() { docker ps -q --filter "label=io.kubernetes.pod.name=bed-done-guest$me" | grep -q .; }
  wait_until 3000 "the host's bed-done-guest$me pod" done_pod || true
  figure "joined-to-done $(since "$t0") s"
  save journal journalctl -u kubelet -o short-monotonic --no-pager
  save docker-ps docker ps -a
}

# ---------------------------------------------------------------------------------------------
# Not a scenario of its own: the README's command has no upstream equivalent that takes its cgroup
# driver from Docker; upstream-side-by-side gives reboot's figures and the limits.
