#!/usr/bin/env bash
# Sourced by guest-scenarios.sh: boots test bed guests under QEMU and follows their markers.
#
# A guest is a directory (guest_new): a copy-on-write qcow2 overlay of the cached image
# (guest-image.sh), a small ext4 shared disk (label GUESTBED) made from a directory with
# mkfs.ext4 -d and read back with debugfs (no mount on this side), and two serial logs:
# console.log (ttyS0: kernel and systemd) and results.log (ttyS1: the guest's @@GB markers, see
# deploy/guest/run.sh). QEMU runs under `nice -n 10` with -no-reboot, so a reboot inside the guest
# ends QEMU and guest_start boots the same overlay again. Networking: user mode with restrict=on
# (nothing leaves the machine) and GUEST_HOSTFWD ports on 127.0.0.1; GUEST_LINK adds a socket
# netdev on 127.0.0.1 between guests (listen=127.0.0.1:PORT on one, connect=127.0.0.1:PORT on the
# other). Every QEMU started here is ended by PID and every guest directory removed by guest_cleanup
# (set as the EXIT trap by the caller).
#
# Environment: JKUBELET_GUEST_CACHE (the image), JKUBELET_GUEST_ACCEL (kvm or tcg; default: KVM
# only when a probe boots the image's kernel with it), JKUBELET_GUEST_MEMORY (MiB, default 4096),
# JKUBELET_GUEST_CPUS (default 2), JKUBELET_GUEST_KEEP=1 (keep the guest directories).

GUEST_CACHE=${JKUBELET_GUEST_CACHE:-/var/cache/jkubelet-guest}
GUEST_PIDS=()
GUEST_DIRS=()

# guest_accel: kvm when the image's kernel boots under KVM here (a probe of at most 40 s, whose
# answer is cached next to the image), else tcg.
guest_accel() {
  if [ -n "${JKUBELET_GUEST_ACCEL:-}" ]; then
    echo "$JKUBELET_GUEST_ACCEL"
    return
  fi
  local probe=$GUEST_CACHE/accel-probe
  if [ -f "$probe" ] && [ "$probe" -nt "$GUEST_CACHE/vmlinuz" ]; then
    cat "$probe"
    return
  fi
  local accel=tcg
  if [ -w /dev/kvm ]; then
    local tmp pid deadline
    tmp=$(mktemp -d)
    # Without a root disk the kernel boots to its root-mount panic: proof enough that it runs.
    qemu-system-x86_64 -accel kvm -m 512 -display none -no-reboot -monitor none \
      -serial "file:$tmp/console.log" -kernel "$GUEST_CACHE/vmlinuz" \
      -append 'console=ttyS0 panic=-1' >/dev/null 2>&1 &
    pid=$!
    deadline=$(($(date +%s) + 40))
    while [ "$(date +%s)" -lt "$deadline" ] && kill -0 "$pid" 2>/dev/null; do
      grep -q 'Kernel panic' "$tmp/console.log" 2>/dev/null && break
      sleep 1
    done
    grep -q 'Kernel panic' "$tmp/console.log" 2>/dev/null && accel=kvm
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    rm -rf "$tmp"
  fi
  echo "$accel" >"$probe"
  echo "guest: KVM probe: $accel" >&2
  echo "$accel"
}

# guest_new DIR SHARED_SRC: DIR becomes a guest: overlay.qcow2 of the cached image, and shared.img
# made from the directory SHARED_SRC.
guest_new() {
  local dir=$1 src=$2 mb
  mkdir -p "$dir"
  GUEST_DIRS+=("$dir")
  qemu-img create -q -f qcow2 -b "$GUEST_CACHE/base.img" -F raw "$dir/overlay.qcow2"
  mkdir -p "$src/out"
  mb=$(($(du -sm "$src" | cut -f1) + 128))
  truncate -s "${mb}M" "$dir/shared.img"
  mkfs.ext4 -q -F -L GUESTBED -d "$src" "$dir/shared.img"
  : >"$dir/console.log"
  : >"$dir/results.log"
  : >"$dir/timed.log"
  echo 0 >"$dir/seen"
}

# guest_start DIR [QEMU_ARG...]: boots DIR's overlay (again); GUEST_PID is QEMU's PID.
guest_start() {
  local dir=$1 accel net
  shift
  accel=$(guest_accel)
  net="user,id=n0,restrict=on${GUEST_HOSTFWD:+,$GUEST_HOSTFWD}"
  local link=()
  if [ -n "${GUEST_LINK:-}" ]; then
    link=(-netdev "socket,id=n1,$GUEST_LINK" -device "virtio-net-pci,netdev=n1,mac=${GUEST_LINK_MAC:-52:54:00:12:34:57}")
  fi
  echo "guest: booting $(basename "$dir") ($accel, ${JKUBELET_GUEST_CPUS:-2} CPUs, ${JKUBELET_GUEST_MEMORY:-4096} MiB)" >&2
  nice -n 10 qemu-system-x86_64 -accel "$accel" -smp "${JKUBELET_GUEST_CPUS:-2}" \
    -m "${JKUBELET_GUEST_MEMORY:-4096}" -display none -no-reboot -monitor none \
    -chardev "file,id=s0,path=$dir/console.log,append=on" -serial chardev:s0 \
    -chardev "file,id=s1,path=$dir/results.log,append=on" -serial chardev:s1 \
    -kernel "$GUEST_CACHE/vmlinuz" -initrd "$GUEST_CACHE/initrd.img" \
    -append "root=/dev/vda rw console=ttyS0 panic=5 ${GUEST_CMDLINE:-}" \
    -drive "file=$dir/overlay.qcow2,format=qcow2,if=virtio" \
    -drive "file=$dir/shared.img,format=raw,if=virtio" \
    -netdev "$net" -device virtio-net-pci,netdev=n0 "${link[@]}" "$@" \
    >>"$dir/qemu.log" 2>&1 </dev/null &
  GUEST_PID=$!
  GUEST_PIDS+=("$GUEST_PID")
  GUEST_T0=$(date +%s)
  echo "$GUEST_T0" >"$dir/t0"
}

guest_running() { kill -0 "$1" 2>/dev/null && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }

# guest_follow DIR: prints the markers that arrived since the last call, each with the seconds
# since QEMU started (host clock), and appends them to DIR/timed.log.
guest_follow() {
  local dir=$1 seen total t0
  seen=$(cat "$dir/seen")
  total=$(wc -l <"$dir/results.log")
  [ "$total" -gt "$seen" ] || return 0
  t0=$(cat "$dir/t0")
  tail -n +"$((seen + 1))" "$dir/results.log" | head -n "$((total - seen))" | tr -d '\r' |
    { grep -Ev '^@@GB [0-9]+ [0-9.]+ ALIVE$' || true; } |
    while IFS= read -r line; do
      printf '[host +%ss] %s\n' "$(($(date +%s) - t0))" "$line"
    done | tee -a "$dir/timed.log" >&2
  echo "$total" >"$dir/seen"
}

# guest_wait DIR PID REGEX SECONDS: follows DIR's markers until one matches the extended REGEX (0),
# QEMU PID exits first (2), or SECONDS pass (1). Polls once a second. A guest that has written
# nothing to its results log (markers, or run.sh's heartbeat every 60 s) for
# JKUBELET_GUEST_SILENCE seconds (default 900; 0: never) since its QEMU started has hung: that
# counts as the deadline, said on stderr.
guest_wait() {
  local dir=$1 pid=$2 regex=$3 deadline=$(($(date +%s) + $4)) from silence=${JKUBELET_GUEST_SILENCE:-900}
  local last
  from=$(wc -l <"$dir/timed.log")
  while :; do
    guest_follow "$dir"
    tail -n +"$((from + 1))" "$dir/timed.log" | grep -Eq "$regex" && return 0
    guest_running "$pid" || { guest_follow "$dir"; tail -n +"$((from + 1))" "$dir/timed.log" | grep -Eq "$regex" && return 0; return 2; }
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    last=$(stat -c %Y "$dir/results.log")
    [ "$last" -ge "$(cat "$dir/t0")" ] || last=$(cat "$dir/t0")
    if [ "$silence" -gt 0 ] && [ $(($(date +%s) - last)) -ge "$silence" ]; then
      echo "guest: $(basename "$dir") said nothing for $silence s, not even its heartbeat: it hung" >&2
      return 1
    fi
    sleep 1
  done
}

# guest_wait_exit PID SECONDS: waits for QEMU PID to end (the guest powered off or rebooted).
guest_wait_exit() {
  local pid=$1 deadline=$(($(date +%s) + $2))
  while guest_running "$pid"; do
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 1
  done
}

# guest_stop PID: ends a QEMU started here (TERM, then KILL after 10 s).
guest_stop() {
  local pid=$1
  guest_running "$pid" || return 0
  kill "$pid" 2>/dev/null || true
  guest_wait_exit "$pid" 10 || kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

# guest_results DIR DEST: copies the shared disk's out/ into DEST (QEMU must have ended).
guest_results() {
  mkdir -p "$2"
  debugfs -R "rdump /out $2" "$1/shared.img" >/dev/null 2>&1 || true
  cp "$1/console.log" "$1/results.log" "$1/timed.log" "$1/qemu.log" "$2/" 2>/dev/null || true
}

guest_cleanup() {
  local pid dir
  for pid in "${GUEST_PIDS[@]}"; do guest_stop "$pid"; done
  if [ "${JKUBELET_GUEST_KEEP:-0}" != 1 ]; then
    for dir in "${GUEST_DIRS[@]}"; do rm -rf "$dir"; done
  fi
}
