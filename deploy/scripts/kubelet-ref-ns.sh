#!/usr/bin/env bash
# Runs the upstream kubelet (KUBELET ARG...) in a mount namespace of its own, in which
# /var/log/pods and /var/log/containers are DIR/logs/pods and DIR/logs/containers. v1.20 has those
# two paths built in, and its container GC removes every pod log directory there of a pod it does
# not know, and every link whose target is gone: on a machine where other kubelets run, it would
# delete their pods' logs, and theirs its pods'. DIR itself is made a shared mount, so that what
# the kubelet mounts under it (secret and token tmpfs volumes: its --root-dir must be under DIR)
# reaches the host's namespace, where the Docker engine bind-mounts them into containers.
# The process keeps its PID through the execs (the kubelet's PID is the caller's child's).
#
# Usage: deploy/scripts/kubelet-ref-ns.sh DIR KUBELET [ARG...]     (as root)
set -euo pipefail
dir=$1; shift
mkdir -p "$dir/logs/pods" "$dir/logs/containers" /var/log/pods /var/log/containers
findmnt -rn -M "$dir" >/dev/null || mount --bind "$dir" "$dir"
mount --make-shared "$dir"
exec unshare --mount --propagation unchanged -- /bin/sh -c '
  d=$1; shift
  for m in pods containers; do
    mount --make-private "$(findmnt -n -o TARGET --target /var/log/$m)" &&
      mount --bind "$d/logs/$m" "/var/log/$m" || exit 1
  done
  exec "$@"' sh "$dir" "$@"
