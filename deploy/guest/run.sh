#!/bin/bash
# Runs inside a test bed guest, from the shared disk (/mnt/guestbed), started by the image's
# guestbed.service after docker.service at every boot. It counts the boots of this guest, reports
# when the boot reached multi-user, loads the bed's Docker images (first boot), and calls the
# scenario named in config.env: scenario_NAME (dashes become underscores) in scenarios.sh, once per
# boot. A scenario ends each boot with `finish` (power off: the scenario is over) or `reboot_guest`
# (QEMU runs with -no-reboot and exits; the host boots the same overlay again).
#
# Markers go to /dev/ttyS1 (the host's results log) and to out/markers on the shared disk:
#   @@GB <boot> <guest uptime s> <KIND> <text>
# KIND: BOOT, STEP, FIGURE (a measured figure: name value), RESULT (check PASS|FAIL detail),
# REBOOT, DONE. The host waits for them with deadlines (guest-lib.sh).
set -u
GB=/mnt/guestbed
OUT=$GB/out
mkdir -p "$OUT"
# shellcheck source=/dev/null
. "$GB/config.env"
BOOT=$(($(cat "$OUT/boots" 2>/dev/null || echo 0) + 1))
echo "$BOOT" >"$OUT/boots"
sync

up() { cut -d' ' -f1 /proc/uptime; }
# A heartbeat on the host's results log every 60 s while this boot runs, so that the host can tell a
# guest that hung from one that waits (guest-lib.sh's JKUBELET_GUEST_SILENCE).
(while sleep 60; do echo "@@GB $BOOT $(up) ALIVE" >/dev/ttyS1 2>/dev/null; done) &
mark() { # KIND TEXT...
  local kind=$1
  shift
  local line="@@GB $BOOT $(up) $kind $*"
  echo "$line" >>"$OUT/markers"
  echo "$line" >/dev/ttyS1 2>/dev/null || true
  echo "$line"
}
step() { mark STEP "$@"; }
figure() { mark FIGURE "$@"; }
result() { # CHECK PASS|FAIL DETAIL...
  local check=$1 verdict=$2
  shift 2
  mark RESULT "$SCENARIO $check $verdict $*"
}
# finish: the shared disk is remounted read-only (its journal flushed, so that the host reads it
# whole even if it stops QEMU before the power-off ends), then DONE, then power off.
finish() {
  local line
  line="@@GB $BOOT $(up) DONE $SCENARIO"
  echo "$line" >>"$OUT/markers"
  sync
  mount -o remount,ro "$GB" || echo "guestbed: remount read-only failed"
  echo "$line" >/dev/ttyS1 2>/dev/null || true
  systemctl --no-block poweroff
  exit 0
}
reboot_guest() {
  mark REBOOT "$SCENARIO"
  sync
  systemctl --no-block reboot
  exit 0
}
# wait_until SECONDS DESCRIPTION COMMAND...: polls COMMAND every second until it succeeds; 1 when
# the deadline passed first.
wait_until() {
  local seconds=$1 what=$2 deadline=$(($(date +%s) + $1))
  shift 2
  until "$@"; do
    if [ "$(date +%s)" -ge "$deadline" ]; then
      step "timed out after $seconds s waiting for $what"
      return 1
    fi
    sleep 1
  done
}
# save NAME COMMAND...: the command's output into out/boot<N>-NAME.
save() {
  local name=$1
  shift
  "$@" >"$OUT/boot$BOOT-$name" 2>&1 || true
}

mark BOOT "n=$BOOT kernel=$(uname -r) hostname=$(hostname)"
systemctl is-system-running --wait >/dev/null 2>&1 || true
figure "multi-user-uptime $(up) s; $(systemd-analyze time 2>/dev/null | tr '\n' ' ')"
save docker-info docker info
if [ "$BOOT" -eq 1 ]; then
  for tar in "$GB"/images/*.tar; do
    [ -e "$tar" ] || continue
    docker load -i "$tar" >>"$OUT/docker-load" 2>&1 || step "docker load $tar failed"
  done
  step "images: $(docker images --format '{{.Repository}}:{{.Tag}}' | tr '\n' ' ')"
fi

# shellcheck source=deploy/guest/scenarios.sh
. "$GB/guest/scenarios.sh"
fn=scenario_${SCENARIO//-/_}
if declare -F "$fn" >/dev/null; then
  "$fn"
else
  result scenario FAIL "no scenario $SCENARIO in scenarios.sh"
fi
finish
