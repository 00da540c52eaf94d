#!/usr/bin/env bash
# Builds, once per machine, the Debian 12 (bookworm) guest image of the operator's-machine test bed
# (deploy/scripts/guest-scenarios.sh): a stock systemd + cgroup v2 host with Docker, made only from
# Debian's packages, with a Java 21+ runtime for jkubelet. Prints the cache directory, which holds:
#
#   base.img   an 8 GiB sparse raw ext4 root filesystem (guests boot copy-on-write overlays of it)
#   vmlinuz    the kernel of that root filesystem, and
#   initrd.img its initramfs, so that the modules match
#   recipe     the recipe number below; an image of another recipe is rebuilt
#   build.log  what the build printed, and build-seconds how long it took
#
# What is in it:
# - debootstrap of bookworm with systemd as PID 1, udev, dbus, docker.io, the kernel, the CNI
#   plugins, iptables, iproute2, conntrack, curl, jq, kmod; docker.io's recommended packages
#   (apparmor above all: without apparmor_parser every container fails to start, and cgroupfs-mount,
#   git, xz-utils);
# - a JDK 21+ copied from this machine (JAVA_HOME or java-home.sh) into /usr/lib/jvm: bookworm
#   packages only openjdk-17, and jkubelet's package declares no Java dependency for that reason;
# - systemd-networkd taking the QEMU NIC's address by DHCP; apt lists, apt-daily and man-db timers
#   and the serial getty gone; a hostname ("debian", as the Debian installer's default) that, as on
#   a stock host, /etc/hosts does not name;
# - guestbed.service: after docker.service, it mounts the second virtio disk (the bed's shared disk,
#   label GUESTBED) on /mnt/guestbed and runs its guest/run.sh, whose markers go to /dev/ttyS1.
#   Without that disk it does nothing, and the guest is a plain stock host.
#
# Usage: deploy/scripts/guest-image.sh [--force]
# Environment: JKUBELET_GUEST_CACHE (default /var/cache/jkubelet-guest), JKUBELET_GUEST_MIRROR
# (default: the bookworm mirror this machine's apt uses), JKUBELET_GUEST_JAVA_HOME (the JDK copied
# into the image; default the one java-home.sh finds).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${JKUBELET_GUEST_CACHE:-/var/cache/jkubelet-guest}
# Bumped whenever what follows changes, so that an image of an older recipe is rebuilt.
RECIPE=1
SIZE=8G
SUITE=bookworm
PACKAGES=systemd,systemd-sysv,udev,dbus,docker.io,iproute2,iptables,ca-certificates,procps
PACKAGES+=,linux-image-amd64,initramfs-tools,containernetworking-plugins,conntrack,curl,kmod,jq
# docker.io's Recommends (less needrestart, which asks questions).
PACKAGES+=,apparmor,cgroupfs-mount,git,xz-utils
export DEBIAN_FRONTEND=noninteractive LC_ALL=C

if [ "${1:-}" != --force ] && [ -f "$CACHE/base.img" ] && [ -f "$CACHE/vmlinuz" ] && [ -f "$CACHE/initrd.img" ] &&
  [ "$(cat "$CACHE/recipe" 2>/dev/null)" = "$RECIPE" ]; then
  echo "$CACHE"
  exit 0
fi
[ "$(id -u)" -eq 0 ] || { echo "guest-image: needs root (debootstrap, chroot)" >&2; exit 1; }

need=()
command -v debootstrap >/dev/null || need+=(debootstrap)
command -v mkfs.ext4 >/dev/null || need+=(e2fsprogs)
if [ ${#need[@]} -gt 0 ]; then
  echo "guest-image: installing ${need[*]}" >&2
  apt-get update -qq >&2 && apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
fi

java_home=${JKUBELET_GUEST_JAVA_HOME:-$("$here/java-home.sh")}
[ -x "$java_home/bin/java" ] || { echo "guest-image: no java in $java_home" >&2; exit 1; }
mirror=${JKUBELET_GUEST_MIRROR:-$(apt-get indextargets --format '$(SITE) $(RELEASE)' 'Created-By: Packages' 2>/dev/null |
  awk -v s="$SUITE" '$2 == s {print $1; exit}')}

mkdir -p "$CACHE"
work=$(mktemp -d "$CACHE/build.XXXXXX")
rootfs=$work/rootfs
mounted=()
cleanup() {
  local m i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    m=${mounted[$i]}
    umount -l "$m" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT
log=$CACHE/build.log
: >"$log"
started=$(date +%s)
step() { echo "guest-image: $* ($(($(date +%s) - started)) s)" | tee -a "$log" >&2; }

step "debootstrap $SUITE${mirror:+ from the mirror apt uses} (about 3 minutes)"
# shellcheck disable=SC2086 # an empty mirror leaves debootstrap its own default
debootstrap --include="$PACKAGES" "$SUITE" "$rootfs" $mirror >>"$log" 2>&1 ||
  { tail -n 30 "$log" >&2; echo "guest-image: debootstrap failed; see $log" >&2; exit 1; }

chroot_mount() { # TYPE SRC DIR
  mount -t "$1" "$2" "$rootfs$3"
  mounted+=("$rootfs$3")
}
chroot_mount proc proc /proc
chroot_mount sysfs sys /sys
mount --bind /dev "$rootfs/dev" && mounted+=("$rootfs/dev")
# Nothing starts inside the chroot while it is set up.
printf '#!/bin/sh\nexit 101\n' >"$rootfs/usr/sbin/policy-rc.d"
chmod 0755 "$rootfs/usr/sbin/policy-rc.d"

step "configuring"
echo debian >"$rootfs/etc/hostname"
printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\nff02::1\t\tip6-allnodes\nff02::2\t\tip6-allrouters\n' \
  >"$rootfs/etc/hosts"
# debootstrap copies this machine's resolv.conf; the guest has no DNS (restrict=on).
: >"$rootfs/etc/resolv.conf"
echo '/dev/vda / ext4 rw,errors=remount-ro 0 1' >"$rootfs/etc/fstab"
chroot "$rootfs" passwd -d root >/dev/null
mkdir -p "$rootfs/etc/systemd/network"
cat >"$rootfs/etc/systemd/network/10-qemu.network" <<'NET'
[Match]
Name=en* eth*

[Network]
DHCP=ipv4
NET
chroot "$rootfs" systemctl enable systemd-networkd.service >>"$log" 2>&1
chroot "$rootfs" systemctl mask apt-daily.timer apt-daily-upgrade.timer man-db.timer \
  serial-getty@ttyS0.service serial-getty@ttyS1.service >>"$log" 2>&1

step "copying the JDK ($("$java_home/bin/java" -version 2>&1 | head -n 1))"
mkdir -p "$rootfs/usr/lib/jvm"
cp -a "$java_home" "$rootfs/usr/lib/jvm/$(basename "$java_home")"

# The bed's runner: mounts the shared disk and runs the scenario it carries.
cat >"$rootfs/usr/local/sbin/guestbed-run" <<'RUN'
#!/bin/sh
# Runs the test bed's scenario from the shared disk (label GUESTBED), if the guest has one.
dev=/dev/disk/by-label/GUESTBED
udevadm settle --timeout=30 || true
[ -e "$dev" ] || { echo "guestbed: no shared disk; nothing to run"; exit 0; }
mkdir -p /mnt/guestbed
mountpoint -q /mnt/guestbed || mount "$dev" /mnt/guestbed || exit 1
exec /bin/bash /mnt/guestbed/guest/run.sh
RUN
chmod 0755 "$rootfs/usr/local/sbin/guestbed-run"
cat >"$rootfs/etc/systemd/system/guestbed.service" <<'UNIT'
[Unit]
Description=Operator's-machine test bed: the scenario on the shared disk
Wants=docker.service
After=docker.service local-fs.target

[Service]
Type=exec
ExecStart=/usr/local/sbin/guestbed-run
StandardOutput=journal+console
StandardError=journal+console
TimeoutStopSec=30

[Install]
WantedBy=multi-user.target
UNIT
chroot "$rootfs" systemctl enable guestbed.service >>"$log" 2>&1

# The kernel's postinst ran update-initramfs inside debootstrap already (5 minutes on a busy
# machine); it runs here only when that left no initrd.
if ! ls "$rootfs"/boot/initrd.img-* >/dev/null 2>&1; then
  step "update-initramfs"
  chroot "$rootfs" update-initramfs -c -k all >>"$log" 2>&1
fi

rm -f "$rootfs/usr/sbin/policy-rc.d"
# The apt lists name the mirror; the caches are of no use in a guest without a network.
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb
rm -f "$rootfs/etc/machine-id" "$rootfs/var/lib/dbus/machine-id"
: >"$rootfs/etc/machine-id"
for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount "${mounted[$i]}"; done
mounted=()

kernel=$(readlink -f "$rootfs/vmlinuz")
initrd=$(readlink -f "$rootfs/initrd.img")
[ -f "$kernel" ] && [ -f "$initrd" ] || { echo "guest-image: no kernel or initrd in the rootfs" >&2; exit 1; }
cp "$kernel" "$work/vmlinuz"
cp "$initrd" "$work/initrd.img"

step "mkfs.ext4 -d into a $SIZE sparse image"
truncate -s "$SIZE" "$work/base.img"
mkfs.ext4 -q -F -L jkubelet-root -d "$rootfs" "$work/base.img" >>"$log" 2>&1
rm -rf "$rootfs"
mv "$work/base.img" "$work/vmlinuz" "$work/initrd.img" "$CACHE/"
echo "$RECIPE" >"$CACHE/recipe"
echo "$(($(date +%s) - started))" >"$CACHE/build-seconds"
step "done: $CACHE"
echo "$CACHE"
