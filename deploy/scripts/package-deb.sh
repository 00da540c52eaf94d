#!/usr/bin/env bash
# Builds jkubelet's Debian package: the distribution under /usr/lib/jkubelet, /usr/bin/kubelet and
# /usr/bin/jkubelet, the kubelet.service unit and kubeadm's 10-kubeadm.conf drop-in, so that
# `kubeadm init` and `kubeadm join` on a Debian node with systemd start jkubelet as the node's
# kubelet. It stands in for the upstream `kubelet` package (Provides/Conflicts/Replaces kubelet).
# Java 21 or newer is needed at run time and not declared (Debian 12 packages none); the launcher
# finds one on PATH, in JAVA_HOME or under /usr/lib/jvm, and says so when there is none.
#
# Usage: deploy/scripts/package-deb.sh [OUT_DIR]   (default target/); prints the package's path.
# Packages agent/target/jkubelet, built first when missing (mvn -DskipTests package).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${1:-$root/target}
dist=$root/agent/target/jkubelet
source "$root/deploy/scripts/build-env.sh"
if [ ! -x "$dist/bin/jkubelet" ]; then
  (cd "$root" && mvn -B -ntp -q -DskipTests package) >&2
fi
# The project's version, as Debian orders it: 0.1.0-SNAPSHOT sorts below 0.1.0 as 0.1.0~SNAPSHOT.
version=$(sed -n '0,/<version>/s:.*<version>\(.*\)</version>.*:\1:p' "$root/pom.xml" | tr - '~')
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
pkg=$stage/jkubelet
install -d "$pkg/DEBIAN" "$pkg/usr/lib/jkubelet" "$pkg/usr/bin" "$pkg/lib/systemd/system" \
  "$pkg/etc/systemd/system/kubelet.service.d" "$pkg/var/cache/jkubelet"
# The launcher and the jars; not the class-data archives a local run may have left.
cp -a "$dist/bin" "$pkg/usr/lib/jkubelet/"
install -d "$pkg/usr/lib/jkubelet/lib"
cp "$dist"/lib/*.jar "$pkg/usr/lib/jkubelet/lib/"
ln -s ../lib/jkubelet/bin/kubelet "$pkg/usr/bin/kubelet"
ln -s ../lib/jkubelet/bin/jkubelet "$pkg/usr/bin/jkubelet"
install -m 0644 "$root/deploy/debian/kubelet.service" "$pkg/lib/systemd/system/kubelet.service"
install -m 0644 "$root/deploy/debian/10-kubeadm.conf" \
  "$pkg/etc/systemd/system/kubelet.service.d/10-kubeadm.conf"
cat >"$pkg/DEBIAN/control" <<CONTROL
Package: jkubelet
Version: $version
Architecture: all
Maintainer: jkubelet developers <jkubelet@localhost>
Section: admin
Priority: optional
Depends: docker.io | docker-ce | docker-engine, iptables, iproute2, conntrack
Recommends: containernetworking-plugins
Provides: kubelet
Conflicts: kubelet
Replaces: kubelet
Installed-Size: $(du -sk "$pkg" | cut -f1)
Description: Kubernetes node agent on Docker, in Java (kubelet v1.20.2 compatible)
 jkubelet registers its Node, runs the pods bound to it as Docker containers and
 reports their status, as the upstream kubelet v1.20 with dockershim does. This
 package installs it as /usr/bin/kubelet with kubeadm's systemd drop-in.
 It needs a Java 21 or newer runtime.
CONTROL
echo /etc/systemd/system/kubelet.service.d/10-kubeadm.conf >"$pkg/DEBIAN/conffiles"
mkdir -p "$out"
deb=$out/jkubelet_${version}_all.deb
dpkg-deb --root-owner-group -Zgzip --build "$pkg" "$deb" >&2
echo "$deb"
