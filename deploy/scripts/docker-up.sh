#!/usr/bin/env bash
# Makes a Docker Engine answer on the default socket and builds the local images that the
# example manifests and the tests use. Idempotent: an engine that already answers is left
# alone, and images that exist are not rebuilt.
#
#   jkubelet/busybox:1.35  a rootfs of Debian's busybox-static, imported (no registry needed)
#   jkubelet/pause:3.2     a static program that sleeps until SIGTERM and reaps children
#
# Usage: deploy/scripts/docker-up.sh
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

BUSYBOX_IMAGE=${JKUBELET_BUSYBOX_IMAGE:-jkubelet/busybox:1.35}
PAUSE_IMAGE=${JKUBELET_PAUSE_IMAGE:-jkubelet/pause:3.2}
LOG_DIR=${JKUBELET_DOCKERD_LOG_DIR:-/var/log}

need_pkgs=()
command -v dockerd >/dev/null || need_pkgs+=(docker.io)
command -v busybox >/dev/null || need_pkgs+=(busybox-static)
command -v gcc >/dev/null || need_pkgs+=(gcc)
[ -e /usr/include/signal.h ] || need_pkgs+=(libc6-dev)
if [ ${#need_pkgs[@]} -gt 0 ]; then
  echo "docker-up: installing ${need_pkgs[*]}" >&2
  if [ "$(id -u)" -ne 0 ]; then
    echo "docker-up: need root to install ${need_pkgs[*]}" >&2
    exit 1
  fi
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends "${need_pkgs[@]}" >&2
fi

docker_cli=$(command -v docker)
if ! "$docker_cli" info >/dev/null 2>&1; then
  if [ -S /var/run/docker.sock ] && pgrep -x dockerd >/dev/null 2>&1; then
    echo "docker-up: a dockerd runs but does not answer yet; waiting" >&2
  else
    echo "docker-up: starting dockerd (log: $LOG_DIR/jkubelet-dockerd.log)" >&2
    mkdir -p "$LOG_DIR"
    setsid dockerd --host unix:///var/run/docker.sock >"$LOG_DIR/jkubelet-dockerd.log" 2>&1 </dev/null &
  fi
  for _ in $(seq 1 60); do
    "$docker_cli" info >/dev/null 2>&1 && break
    sleep 1
  done
  if ! "$docker_cli" info >/dev/null 2>&1; then
    echo "docker-up: dockerd did not answer within 60 s; see $LOG_DIR/jkubelet-dockerd.log" >&2
    tail -n 30 "$LOG_DIR/jkubelet-dockerd.log" >&2 || true
    exit 1
  fi
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if ! "$docker_cli" image inspect "$BUSYBOX_IMAGE" >/dev/null 2>&1; then
  echo "docker-up: building $BUSYBOX_IMAGE from busybox-static" >&2
  root=$work/busybox
  mkdir -p "$root/bin" "$root/tmp" "$root/etc" "$root/proc" "$root/sys" "$root/dev" "$root/var/www"
  chmod 1777 "$root/tmp"
  cp "$(command -v busybox)" "$root/bin/busybox"
  for applet in $("$root/bin/busybox" --list); do
    [ "$applet" = busybox ] || ln -sf busybox "$root/bin/$applet"
  done
  echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd"
  echo 'nobody:x:65534:65534:nobody:/:/bin/false' >>"$root/etc/passwd"
  echo 'root:x:0:' >"$root/etc/group"
  tar -C "$root" -c . | "$docker_cli" import --change 'CMD ["sh"]' --change 'ENV PATH=/bin' - "$BUSYBOX_IMAGE" >/dev/null
fi

if ! "$docker_cli" image inspect "$PAUSE_IMAGE" >/dev/null 2>&1; then
  echo "docker-up: building $PAUSE_IMAGE" >&2
  mkdir -p "$work/pause"
  cat >"$work/pause.c" <<'C'
/* Sleeps until SIGINT or SIGTERM and reaps any child it inherits, like the upstream pause. */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
static void down(int sig) { (void)sig; _exit(0); }
static void reap(int sig) { (void)sig; while (waitpid(-1, 0, WNOHANG) > 0) {} }
int main(void) {
  struct sigaction stop = {.sa_handler = down}, child = {.sa_handler = reap, .sa_flags = SA_NOCLDSTOP};
  sigaction(SIGINT, &stop, 0);
  sigaction(SIGTERM, &stop, 0);
  sigaction(SIGCHLD, &child, 0);
  for (;;) pause();
}
C
  gcc -static -O2 -o "$work/pause/pause" "$work/pause.c"
  strip "$work/pause/pause"
  tar -C "$work/pause" -c . | "$docker_cli" import --change 'ENTRYPOINT ["/pause"]' - "$PAUSE_IMAGE" >/dev/null
fi

echo "docker-up: engine $("$docker_cli" version --format '{{.Server.Version}}'), images $BUSYBOX_IMAGE $PAUSE_IMAGE" >&2
