#!/usr/bin/env bash
# Builds, locally, the images that `kubeadm init` v1.20.2 runs its control plane from, under the
# exact names and tags that `kubeadm config images list --kubernetes-version v1.20.2` gives, so that
# no registry is needed (kubeadm pulls only an image that is missing):
#
#   k8s.gcr.io/kube-apiserver:v1.20.2           the static binaries that k8s-up.sh builds from the
#   k8s.gcr.io/kube-controller-manager:v1.20.2  v1.20.2 source tree, each at /usr/local/bin/<name>
#   k8s.gcr.io/kube-scheduler:v1.20.2           as in the real images (kubeadm's static pods run
#                                               them by name), with a /tmp and no shell
#   k8s.gcr.io/etcd:3.4.13-0                    Debian's etcd (e2e-images.sh's recipe)
#   k8s.gcr.io/pause:3.2                        the project's pause image, tagged (e2e-images.sh)
#
# kube-proxy and coredns are not built: kubeadm-cluster.sh skips their addon phases.
# Idempotent: an image carrying this script's recipe label, built from the binary it holds, is kept.
#
# Usage: deploy/scripts/kubeadm-images.sh
# Environment: JKUBELET_K8S_CACHE (build cache, default /var/cache/jkubelet-k8s)
set -euo pipefail
scripts=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${JKUBELET_K8S_CACHE:-/var/cache/jkubelet-k8s}
BIN=$CACHE/bin
VERSION=v1.20.2
# Bumped whenever the recipe changes, so that images built by an older one are rebuilt.
RECIPE=1
LABEL=io.jkubelet.kubeadm-image

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

control_plane() { # NAME: k8s.gcr.io/NAME:VERSION from the cache's bin/NAME
  local name=$1 image=k8s.gcr.io/$1:$VERSION root=$work/$1 sum old
  [ -x "$BIN/$name" ] || { echo "kubeadm-images: no $BIN/$name; deploy/scripts/k8s-up.sh builds it" >&2; exit 1; }
  sum=$RECIPE-$(sha256sum "$BIN/$name" | cut -c1-16)
  [ "$(docker image inspect --format "{{index .Config.Labels \"$LABEL\"}}" "$image" 2>/dev/null)" = "$sum" ] && return 0
  mkdir -p "$root/usr/local/bin" "$root/tmp" "$root/etc" "$root/proc" "$root/sys" "$root/dev"
  chmod 1777 "$root/tmp"
  install -m 0755 "$BIN/$name" "$root/usr/local/bin/$name"
  printf '%s\n' 'root:x:0:0:root:/root:/sbin/nologin' 'nobody:x:65534:65534:nobody:/:/sbin/nologin' >"$root/etc/passwd"
  printf '%s\n' 'root:x:0:' 'nogroup:x:65534:' >"$root/etc/group"
  old=$(docker image inspect --format '{{.Id}}' "$image" 2>/dev/null) || true
  tar -C "$root" -c . | docker import --change "LABEL $LABEL=$sum" \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change "ENTRYPOINT [\"/usr/local/bin/$name\"]" - "$image" >/dev/null
  [ -z "$old" ] || docker rmi "$old" >/dev/null 2>&1 || true
  echo "kubeadm-images: built $image" >&2
}

control_plane kube-apiserver
control_plane kube-controller-manager
control_plane kube-scheduler
"$scripts/e2e-images.sh" etcd_image pause
