#!/usr/bin/env bash
# The operator's-machine test bed: jkubelet installed from its own .deb on stock Debian 12 guests
# (systemd as PID 1, cgroup v2, Docker with the systemd cgroup driver), booted under QEMU on this
# machine, one scenario per fresh copy-on-write overlay of a cached image. docs/testing.md, "The
# operator's-machine test bed", says what each scenario checks.
#
# Usage: deploy/scripts/guest-scenarios.sh [SCENARIO...|all]   (default: stock-host; all: every
#        scenario below, one after the other: several hours under TCG)
#   stock-host   dpkg -i, then the README's standalone command with no extra flag; the pods run and
#                every node and pod limit in /sys/fs/cgroup holds after all containers started
#   reboot       kubelet.service from the package (standalone, CNI bridge), rebooted
#                JKUBELET_GUEST_REBOOTS times (default 5): boot to pods Running after each, and the
#                addresses in the CNI IP store that no running pod holds (none may leak)
#   shutdown     kubelet.service with shutdownGracePeriod 30s (10s critical) and two pods that log
#                SIGTERM to the shared disk, then `systemctl poweroff`: logind's delay raised by the
#                drop-in, the delay lock held, the pods stopped within the grace period before
#                systemd stops kubelet (journal of that boot, read on the next)
#   service      kubelet.service from the package (standalone): `systemctl stop` leaves the pods
#                running, `systemctl start` adopts them, the log is in the journal, and
#                Restart=always brings it back after `kill -9` with the same containers
#   upstream-side-by-side  reboot's scenario and figures with the upstream kubelet v1.20.2
#                (kubelet-ref.sh's build) in jkubelet's place, --cgroup-driver=systemd added
#   The cluster scenarios: the guest joins a control plane on this machine (k8s-up.sh's) through
#   the package's unit as kubeadm's join leaves it, and this side checks what the API server saw:
#   shutdown     shutdownGracePeriod 60s (20s critical), three API pods that log SIGTERM to the
#                shared disk (one system-node-critical), then `systemctl poweroff`: logind's delay
#                raised by the drop-in, the delay lock held, the critical pod stopped last, all
#                within the grace period and before systemd stops kubelet (journal of that boot,
#                read on the next); at the API server: the Node NotReady ("node is shutting
#                down") and each pod's final status (Failed, reason Shutdown)
#   memory-pressure  evictionHard memory.available<1Gi; a BestEffort pod that grows past it is
#                evicted, the Guaranteed and Burstable pods keep running with no restart; the
#                API server has the eviction, the node's MemoryPressure, and kubectl logs and
#                exec of a pod on the guest
#   kubeadm-cluster  two guests: `kubeadm init` on this machine (kubeadm-cluster.sh), `kubeadm join`
#                on each guest with the package's defaults; a Deployment with a pod on each guest,
#                each reaching the other over the guests' network, kubectl logs and exec on both
#
# Environment:
#   JKUBELET_GUEST_FLAGS    extra flags for jkubelet in the guest (e.g. --cgroup-driver=systemd)
#   JKUBELET_GUEST_SILENCE  seconds a guest may say nothing, not even its heartbeat (every 60 s),
#                           before it counts as hung (default 900; 0: never)
#   JKUBELET_GUEST_RESULTS  where each scenario's results go (default target/guestbed/SCENARIO)
#   JKUBELET_GUEST_TIMEOUT  seconds a guest boot may take from QEMU's start to its last marker
#                           (default 3600: TCG on 2 busy cores; stock-host restarts jkubelet too)
#   JKUBELET_GUEST_IMAGES   the local Docker images loaded into the guest (default the examples')
#   JKUBELET_GUEST_API_PORT the cluster scenarios' API server port (default 6560; etcd's is
#                           JKUBELET_GUEST_ETCD_PORT, default 23980)
#   and guest-image.sh's and guest-lib.sh's variables (cache, acceleration, memory, CPUs, keep).
# Exit status: 0 when every check passed, 1 when one failed, 2 when the bed itself failed.
set -euo pipefail
# All of it is in main, read whole before it runs: editing this file while a run is under way
# (they are long) cannot change what that run does.
main() {
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
here=$root/deploy/scripts
# shellcheck source=deploy/scripts/guest-lib.sh
source "$here/guest-lib.sh"
# shellcheck source=deploy/scripts/guest-cluster.sh
source "$here/guest-cluster.sh"

scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=(stock-host)
[ "${scenarios[*]}" != all ] ||
  scenarios=(stock-host reboot service shutdown memory-pressure upstream-side-by-side kubeadm-cluster)
RESULTS=${JKUBELET_GUEST_RESULTS:-$root/target/guestbed}
TIMEOUT=${JKUBELET_GUEST_TIMEOUT:-3600}
IMAGES=${JKUBELET_GUEST_IMAGES:-jkubelet/busybox:1.35 jkubelet/pause:3.2}

need=()
command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
command -v qemu-img >/dev/null || need+=(qemu-utils)
command -v debugfs >/dev/null || need+=(e2fsprogs)
if [ ${#need[@]} -gt 0 ]; then
  echo "guest: installing ${need[*]}" >&2
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 &&
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/jkubelet-guestbed.XXXXXX")
cleanup() {
  guest_cleanup
  cluster_down
  kadm_down
  [ "${JKUBELET_GUEST_KEEP:-0}" = 1 ] && echo "guest: kept $work" >&2 || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 2' INT TERM

t=$(date +%s)
"$here/guest-image.sh" >/dev/null
echo "guest: image ready in $GUEST_CACHE ($(($(date +%s) - t)) s here; built in $(cat "$GUEST_CACHE/build-seconds" 2>/dev/null || echo ?) s)" >&2

# The package, as an operator gets it: the project's own package-deb.sh on a fresh build.
source "$here/build-env.sh"
jkubelet_built
mkdir -p "$work/shared/deb" "$work/shared/images"
"$here/package-deb.sh" "$work/shared/deb" >/dev/null
# shellcheck disable=SC2086 # the image names are words
docker save -o "$work/shared/images/bed.tar" $IMAGES
cp -r "$root/deploy/guest" "$work/shared/guest"
cp -r "$root/deploy/examples/manifests" "$work/shared/manifests"

status=0
# run_guest_scenario NAME: one fresh guest (overlay) for NAME, booted again after each REBOOT
# marker until DONE; prints its results and figures.
run_guest_scenario() {
  local name=$1 dir=$work/$1 src=$work/src-$1 out=$RESULTS/$1 boot=0 rc
  rm -rf "$src" "$out"
  cp -a "$work/shared" "$src"
  {
    echo "SCENARIO=$name"
    printf 'JKUBELET_GUEST_FLAGS=%q\n' "${JKUBELET_GUEST_FLAGS:-}"
    printf 'JKUBELET_GUEST_REBOOTS=%q\n' "${JKUBELET_GUEST_REBOOTS:-5}"
    printf 'EXPECTED_PODS=%q\n' "${BED_EXPECTED_PODS:-}"
  } >"$src/config.env"
  [ -z "${BED_KUBE:-}" ] || cp -r "$BED_KUBE" "$src/kube"
  guest_new "$dir" "$src"
  # power_cycle WAITED_FOR: a boot after a reboot (the package installed and enabled on the first)
  # that hung short of its marker (rc 1: the deadline or JKUBELET_GUEST_SILENCE) is reset once per
  # scenario, as an operator resets a node that hangs: QEMU stopped and started again on the same
  # disk. The guest counts the reset boot as its next reboot. Says so on stderr and as a result.
  power_cycle() {
    [ "$rc" = 1 ] && [ "$cycles" -lt 1 ] && grep -q ' REBOOT ' "$dir/timed.log" || return 1
    cycles=$((cycles + 1))
    echo "guest: $name: boot $boot hung before its $1 marker; power-cycling it (once per scenario)" >&2
    guest_stop "$GUEST_PID"
    host_result "$boot" "$dir" power-cycled INFO "boot $boot hung before its $1 marker (TCG); QEMU reset, the next boot counts as a reboot"
  }
  local cycles=0
  while :; do
    boot=$((boot + 1))
    guest_start "$dir"
    rc=0
    guest_wait "$dir" "$GUEST_PID" '@@GB [0-9]+ [0-9.]+ BOOT ' 600 || rc=$?
    power_cycle "BOOT" && continue
    if [ $rc -ne 0 ]; then
      echo "guest: $name: boot $boot gave no BOOT marker ($([ $rc = 1 ] && echo timeout || echo QEMU ended)); QEMU's own output, then the console:" >&2
      tail -n 5 "$dir/qemu.log" >&2
      tail -n 30 "$dir/console.log" >&2
      guest_stop "$GUEST_PID"
      status=2
      break
    fi
    rc=0
    guest_wait "$dir" "$GUEST_PID" '@@GB [0-9]+ [0-9.]+ (DONE|REBOOT) ' "$TIMEOUT" || rc=$?
    power_cycle "DONE or REBOOT" && continue
    if [ $rc -ne 0 ]; then
      echo "guest: $name: no DONE or REBOOT marker ($([ $rc = 1 ] && echo "timeout, $TIMEOUT s" || echo QEMU ended)); console:" >&2
      tail -n 30 "$dir/console.log" >&2
      guest_stop "$GUEST_PID"
      status=2
      break
    fi
    local rebooting=0
    tail -n 1 "$dir/timed.log" | grep -q ' REBOOT ' && rebooting=1
    if [ $rebooting = 1 ]; then
      guest_wait_exit "$GUEST_PID" 300 || { echo "guest: $name: did not reboot; stopping QEMU" >&2; guest_stop "$GUEST_PID"; }
    else
      # DONE: the shared disk is read-only by now. A power-off with pods running waits up to 90 s
      # for containers that ignore SIGTERM (systemd's default): not this scenario's business.
      guest_wait_exit "$GUEST_PID" 30 || guest_stop "$GUEST_PID"
    fi
    echo "guest: $name: boot $boot ended after $(($(date +%s) - GUEST_T0)) s (QEMU exited)" >&2
    # This side's checks of what the API server saw while the guest ran (cluster scenarios).
    if declare -F "host_after_${name//-/_}" >/dev/null; then "host_after_${name//-/_}" "$boot" "$dir" || true; fi
    [ $rebooting = 1 ] || break
  done
  guest_results "$dir" "$out"
  echo "== $name: results (also in $out)"
  grep -E ' (FIGURE|RESULT) ' "$dir/timed.log" | sed -E 's/^\[host \+([0-9]+)s\] @@GB ([0-9]+) ([0-9.]+|host) /host +\1 s, boot \2, uptime \3 s: /' || true
  if grep -q ' RESULT [^ ]* [^ ]* FAIL ' "$dir/timed.log"; then
    [ $status -ne 0 ] || status=1
  fi
  local pass fail
  pass=$(grep -c ' RESULT [^ ]* [^ ]* PASS ' "$dir/timed.log" || true)
  fail=$(grep -c ' RESULT [^ ]* [^ ]* FAIL ' "$dir/timed.log" || true)
  echo "guest: $name: ${pass} passed, ${fail} failed" >&2
}

for s in "${scenarios[@]}"; do
  case $s in
    stock-host | reboot | service) run_guest_scenario "$s" ;;
    shutdown | memory-pressure) run_cluster_scenario "$s" ;;
    upstream-side-by-side)
      # The reference kubelet, built once per machine into the k8s cache, on this scenario's disk.
      cp "$("$here/kubelet-ref.sh")" "$work/shared/kubelet-ref"
      run_guest_scenario "$s"
      rm -f "$work/shared/kubelet-ref" ;;
    kubeadm-cluster) run_kubeadm_cluster ;;
    *)
      echo "guest: unknown scenario $s" >&2
      status=2
      ;;
  esac
done
exit $status
}
main "$@"
