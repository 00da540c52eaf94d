#!/usr/bin/env bash
# Builds, locally, the container images that upstream's e2e suite (v1.20.2, test/utils/image/
# manifest.go) names for its [NodeConformance] specs, under the exact names and tags it pulls, so
# that no registry is needed. Each is a `docker import` of a small root filesystem made from
# Debian's busybox-static and binaries built from the same v1.20.2 source tree as e2e.test, with
# the entrypoint of the real image:
#
#   k8s.gcr.io/e2e-test-images/agnhost:2.21  /agnhost (static) and /agnhost-2, a busybox, a `curl`
#                                            on busybox wget, an `nc` with -u (a static UDP
#                                            client), porter's certificates; ENTRYPOINT
#                                            /agnhost, CMD pause
#   busybox:1.29                             busybox; CMD sh
#   nginx:1.14-alpine, nginx:1.15-alpine     busybox httpd on port 80 (CMD nginx -g 'daemon off;')
#   httpd:2.4.38-alpine, httpd:2.4.39-alpine busybox httpd on port 80 serving "It works!"
#                                            (CMD httpd-foreground)
#   gcr.io/kubernetes-e2e-test-images/nonewprivs:1.0  the setuid-root `nnp` (prints its euid)
#   gcr.io/kubernetes-e2e-test-images/nonroot:1.0     busybox with USER 1234
#   gcr.io/kubernetes-e2e-test-images/sample-apiserver:1.17  the sample-apiserver of the same tree
#                                            (ENTRYPOINT /sample-apiserver, with API Priority and
#                                            Fairness off as in 1.17), for the Aggregator spec
#   k8s.gcr.io/etcd:3.4.13-0                 Debian's etcd as /usr/local/bin/etcd, with its libraries
#   gcr.io/kubernetes-e2e-test-images/nautilus:1.0, kitten:1.0  the Update Demo's: busybox httpd
#                                            on port 80 serving the source tree's data.json and
#                                            jpg (CMD test-webserver)
#   k8s.gcr.io/pause:3.2                     the project's pause image, tagged
#
# Idempotent: an image carrying this script's recipe label is kept; others are (re)built.
# Needs the static agnhost, nnp and sample-apiserver binaries that conformance.sh builds into the
# cache's bin/, and Debian's etcd (etcd-server, which k8s-up.sh installs).
#
# Usage: deploy/scripts/e2e-images.sh [IMAGE...]
#   IMAGE: only these, by the name of their recipe below (e.g. `etcd_image pause`, which
#   kubeadm-images.sh builds for kubeadm's control plane); without, all of them.
# Environment: JKUBELET_K8S_CACHE (build cache, default /var/cache/jkubelet-k8s)
set -euo pipefail
CACHE=${JKUBELET_K8S_CACHE:-/var/cache/jkubelet-k8s}
BIN=$CACHE/bin
SRC=$CACHE/src/kubernetes-1.20.2
PAUSE_IMAGE=${JKUBELET_PAUSE_IMAGE:-jkubelet/pause:3.2}
# Bumped whenever a recipe below changes, so that images built by an older one are rebuilt.
RECIPE=7
LABEL=io.jkubelet.e2e-image

if [ $# -eq 0 ]; then
  for f in "$BIN/agnhost" "$BIN/nnp" "$BIN/sample-apiserver"; do
    if [ ! -x "$f" ]; then
      echo "e2e-images: no $f; deploy/scripts/conformance.sh builds it" >&2
      exit 1
    fi
  done
fi
busybox=$(command -v busybox) || { echo "e2e-images: no busybox; run deploy/scripts/docker-up.sh" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

current() { # IMAGE: whether IMAGE exists, built by this recipe
  [ "$(docker image inspect --format "{{index .Config.Labels \"$LABEL\"}}" "$1" 2>/dev/null)" = "$RECIPE" ]
}

# rootfs DIR: a busybox root filesystem, as the alpine and busybox bases have it: applets in /bin,
# root and nobody in /etc/passwd, a world-writable /tmp.
rootfs() {
  local root=$1
  mkdir -p "$root/bin" "$root/tmp" "$root/etc" "$root/proc" "$root/sys" "$root/dev" \
    "$root/root" "$root/var/www" "$root/usr/bin" "$root/usr/sbin" "$root/usr/local/bin"
  chmod 1777 "$root/tmp"
  cp "$busybox" "$root/bin/busybox"
  for applet in $("$root/bin/busybox" --list); do
    [ "$applet" = busybox ] || ln -sf busybox "$root/bin/$applet"
  done
  printf '%s\n' 'root:x:0:0:root:/root:/bin/sh' 'daemon:x:1:1:daemon:/usr/sbin:/bin/false' \
    'nobody:x:65534:65534:nobody:/home:/bin/false' >"$root/etc/passwd"
  printf '%s\n' 'root:x:0:' 'daemon:x:1:' 'nogroup:x:65534:' >"$root/etc/group"
}

# web_server FILE DIR: a PID 1 that serves DIR on port 80 with busybox httpd, and stops at once on
# SIGTERM as nginx and httpd do.
web_server() {
  cat >"$1" <<SH
#!/bin/sh
trap 'exit 0' TERM INT
/bin/busybox httpd -f -p 80 -h $2 &
wait
SH
  chmod 0755 "$1"
}

import() { # IMAGE DIR CHANGE...: imports DIR as IMAGE with the Dockerfile CHANGEs
  local image=$1 dir=$2; shift 2
  local changes=(--change "LABEL $LABEL=$RECIPE") old
  for c in "$@"; do changes+=(--change "$c"); done
  old=$(docker image inspect --format '{{.Id}}' "$image" 2>/dev/null) || true
  tar -C "$dir" -c . | docker import "${changes[@]}" - "$image" >/dev/null
  # The image an older recipe built, now untagged (kept while a container still uses it).
  [ -z "$old" ] || docker rmi "$old" >/dev/null 2>&1 || true
  echo "e2e-images: built $image" >&2
}

# dynamic_busybox: the path of Debian's dynamically linked busybox (package busybox, which
# conflicts with busybox-static, so it is unpacked into the cache rather than installed).
dynamic_busybox() {
  local dest=$BIN/busybox-dynamic
  if [ ! -x "$dest" ]; then
    local d
    d=$(mktemp -d "$work/bb.XXXXXX")
    (cd "$d" && apt-get download busybox >/dev/null 2>&1) ||
      { apt-get update -qq >/dev/null && (cd "$d" && apt-get download busybox >/dev/null 2>&1); }
    dpkg-deb -x "$d"/busybox_*.deb "$d/x"
    install -m 0755 "$d/x/bin/busybox" "$dest.tmp"
    mv "$dest.tmp" "$dest"
  fi
  echo "$dest"
}

# udp_client FILE: a static `nc -u [-w SECONDS] HOST PORT`: stdin goes out as one datagram, and
# every datagram that comes back is printed, until none has come for SECONDS (default 1).
udp_client() {
  cat >"$work/nc-udp.c" <<'C'
#include <arpa/inet.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
int main(int argc, char **argv) {
  int wait = 1, i;
  const char *host = NULL, *port = NULL;
  for (i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-w") && i + 1 < argc) wait = atoi(argv[++i]);
    else if (argv[i][0] == '-') continue;
    else if (!host) host = argv[i];
    else port = argv[i];
  }
  if (!host || !port) { fprintf(stderr, "usage: nc -u [-w SECONDS] HOST PORT\n"); return 2; }
  struct addrinfo hints = {0}, *ai;
  hints.ai_socktype = SOCK_DGRAM;
  if (getaddrinfo(host, port, &hints, &ai) != 0) { fprintf(stderr, "nc: bad address\n"); return 1; }
  int fd = socket(ai->ai_family, SOCK_DGRAM, 0);
  if (fd < 0 || connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) { perror("nc"); return 1; }
  static char buf[65536];
  size_t len = 0;
  ssize_t n;
  while (len < sizeof buf && (n = read(0, buf + len, sizeof buf - len)) > 0) len += n;
  if (send(fd, buf, len, 0) < 0) { perror("nc"); return 1; }
  struct pollfd p = {fd, POLLIN, 0};
  while (poll(&p, 1, wait * 1000) > 0) {
    n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    fwrite(buf, 1, n, stdout);
    fflush(stdout);
  }
  return 0;
}
C
  gcc -static -O2 -o "$1" "$work/nc-udp.c"
}

agnhost() {
  local image=k8s.gcr.io/e2e-test-images/agnhost:2.21 root=$work/agnhost
  current "$image" && return 0
  rootfs "$root"
  install -m 0755 "$BIN/agnhost" "$root/agnhost"
  ln -s agnhost "$root/agnhost-2"
  mkdir -p "$root/uploads"
  cp "$SRC/test/images/agnhost/porter/localhost.crt" "$SRC/test/images/agnhost/porter/localhost.key" "$root/"
  # The suite runs `curl -g -q -s URL` in agnhost pods: a curl on busybox wget for that use.
  cat >"$root/usr/bin/curl" <<'SH'
#!/bin/sh
# curl on busybox wget, for what the e2e suite asks of it: [-g] [-q] [-s] [-S] [-i] [-o FILE]
# [-w %{http_code}] [-m|--max-time N] [--connect-timeout N] URL. The body goes to stdout (or FILE).
out=- max= connect= url= write= silent= show_error=
while [ $# -gt 0 ]; do
  case "$1" in
    -o | --output) out=$2; shift ;;
    -w | --write-out) write=$2; shift ;;
    -m | --max-time) max=$2; shift ;;
    --connect-timeout) connect=$2; shift ;;
    -s | --silent) silent=1 ;;
    -S | --show-error) show_error=1 ;;
    -*) ;;
    *) url=$1 ;;
  esac
  shift
done
[ -n "$url" ] || { echo "curl: no URL specified" >&2; exit 2; }
[ -z "$silent" ] || [ -n "$show_error" ] || exec 2>/dev/null
# A time limit through `timeout`: Debian's busybox wget crashes with -T on a refused connection.
limit=${max:-${connect:+$((connect + 5))}}
get() { if [ -n "$limit" ]; then timeout "$limit" wget "$@"; else wget "$@"; fi; }
if [ -z "$write" ]; then
  get -q -O "$out" "$url"
  exit
fi
# -w %{http_code}: the status line that wget -S prints on stderr, 000 when nothing answered.
{ headers=$(get -S -q -O "$out" "$url" 2>&1 1>&3); rc=$?; } 3>&1
code=$(printf '%s\n' "$headers" | sed -n 's/^ *HTTP\/[0-9.]* \([0-9][0-9][0-9]\).*/\1/p' | tail -n 1)
printf '%s' "$write" | sed "s/%{http_code}/${code:-000}/g"
[ -n "$code" ] || exit "$rc"
SH
  chmod 0755 "$root/usr/bin/curl"
  # The suite runs `echo hostName | nc -w 1 -u IP PORT` for its UDP checks; busybox's nc has no
  # -u. A static UDP client for that form, and busybox's nc for everything else.
  # busybox-static's shell runs its own applets before looking at PATH, so /bin/sh is Debian's
  # dynamic busybox (with its libraries), whose shell goes by PATH like the real image's.
  udp_client "$root/usr/bin/nc-udp"
  # The suite also runs `nc -zv -t -w 2 HOST PORT` to test a TCP port: -z is busybox nc's
  # `-e /bin/true` (connect, then close), and -v and -t are dropped.
  cat >"$root/usr/bin/nc" <<'SH'
#!/bin/sh
for a in "$@"; do
  case "$a" in -w | -p | -i | -e | -f) ;; -*u*) exec /usr/bin/nc-udp "$@" ;; esac
done
zero=
set -- "$@" --end
while [ "$1" != --end ]; do
  a=$1
  shift
  case "$a" in
    -w | -p | -i | -e | -f) set -- "$@" "$a" "$1"; shift ;;
    -*z* | -*v* | -*t*)
      case "$a" in *z*) zero=1 ;; esac
      rest=$(printf '%s' "${a#-}" | tr -d 'zvt')
      [ -z "$rest" ] || set -- "$@" "-$rest" ;;
    *) set -- "$@" "$a" ;;
  esac
done
shift
[ -z "$zero" ] || exec /bin/busybox nc "$@" -e /bin/true
exec /bin/busybox nc "$@"
SH
  chmod 0755 "$root/usr/bin/nc"
  install -m 0755 "$(dynamic_busybox)" "$root/bin/busybox-dynamic"
  ln -sf busybox-dynamic "$root/bin/sh"
  ldd "$root/bin/busybox-dynamic" | grep -o '/[^ ]*' | while read -r lib; do
    mkdir -p "$root$(dirname "$lib")"
    cp -L "$lib" "$root$lib"
  done
  import "$image" "$root" 'ENTRYPOINT ["/agnhost"]' 'CMD ["pause"]' 'EXPOSE 80 8080 8081 9376' \
    'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
}

busybox_image() {
  local image=busybox:1.29 root=$work/busybox
  current "$image" && return 0
  rootfs "$root"
  import "$image" "$root" 'CMD ["sh"]' 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
}

nginx() {
  local tag=$1 image=nginx:$1 root=$work/nginx-$1
  current "$image" && return 0
  rootfs "$root"
  mkdir -p "$root/usr/share/nginx/html"
  printf '<!DOCTYPE html>\n<html>\n<head>\n<title>Welcome to nginx!</title>\n</head>\n<body>\n<h1>Welcome to nginx!</h1>\n</body>\n</html>\n' \
    >"$root/usr/share/nginx/html/index.html"
  web_server "$root/usr/sbin/nginx" /usr/share/nginx/html
  import "$image" "$root" 'CMD ["nginx", "-g", "daemon off;"]' 'EXPOSE 80' \
    'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
  : "$tag"
}

httpd() {
  local image=httpd:$1 root=$work/httpd-$1
  current "$image" && return 0
  rootfs "$root"
  mkdir -p "$root/usr/local/apache2/htdocs" "$root/usr/local/apache2/bin"
  echo '<html><body><h1>It works!</h1></body></html>' >"$root/usr/local/apache2/htdocs/index.html"
  web_server "$root/usr/local/apache2/bin/httpd-foreground" /usr/local/apache2/htdocs
  import "$image" "$root" 'CMD ["httpd-foreground"]' 'EXPOSE 80' 'WORKDIR /usr/local/apache2' \
    'ENV PATH=/usr/local/apache2/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
}

nonewprivs() {
  local image=gcr.io/kubernetes-e2e-test-images/nonewprivs:1.0 root=$work/nonewprivs
  current "$image" && return 0
  rootfs "$root"
  # Owned by root and setuid, as the real image's `chmod +s` leaves it (chown would clear the bit).
  install -o 0 -g 0 -m 0755 "$BIN/nnp" "$root/usr/local/bin/nnp"
  chmod 4755 "$root/usr/local/bin/nnp"
  import "$image" "$root" 'CMD ["nnp"]' 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
}

nonroot() {
  local image=gcr.io/kubernetes-e2e-test-images/nonroot:1.0 root=$work/nonroot
  current "$image" && return 0
  rootfs "$root"
  import "$image" "$root" 'USER 1234' 'CMD ["sh"]' 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
}

update_demo() { # NAME: nautilus or kitten
  local image=gcr.io/kubernetes-e2e-test-images/$1:1.0 root=$work/$1
  current "$image" && return 0
  rootfs "$root"
  cp "$SRC/test/images/$1/html/data.json" "$SRC/test/images/$1/html/$1.jpg" "$root/"
  web_server "$root/usr/local/bin/test-webserver" /
  import "$image" "$root" 'CMD ["test-webserver"]' 'EXPOSE 80' \
    'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
}

sample_apiserver() {
  local image=gcr.io/kubernetes-e2e-test-images/sample-apiserver:1.17 root=$work/sample-apiserver
  current "$image" && return 0
  rootfs "$root"
  install -m 0755 "$BIN/sample-apiserver" "$root/sample-apiserver"
  # v1.20's server has API Priority and Fairness, which the 1.17 image had not and which the
  # spec's RBAC does not let it read (flowschemas): off, as in the image the spec names.
  import "$image" "$root" 'ENTRYPOINT ["/sample-apiserver", "--feature-gates=APIPriorityAndFairness=false"]'
}

etcd_image() {
  local image=k8s.gcr.io/etcd:3.4.13-0 root=$work/etcd bin lib
  current "$image" && return 0
  bin=$(command -v etcd) || { echo "e2e-images: no etcd; install Debian's etcd-server" >&2; exit 1; }
  rootfs "$root"
  install -m 0755 "$bin" "$root/usr/local/bin/etcd"
  # Debian's etcd links against the C library: the libraries it loads, at the same paths.
  for lib in $(ldd "$bin" | grep -o '/[^ ]*'); do
    mkdir -p "$root$(dirname "$lib")"
    cp -L "$lib" "$root$lib"
  done
  import "$image" "$root" 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
}

pause() {
  local image=k8s.gcr.io/pause:3.2
  if [ "$(docker image inspect --format '{{.Id}}' "$image" 2>/dev/null)" != \
    "$(docker image inspect --format '{{.Id}}' "$PAUSE_IMAGE")" ]; then
    docker tag "$PAUSE_IMAGE" "$image"
    echo "e2e-images: tagged $PAUSE_IMAGE as $image" >&2
  fi
}

if [ $# -gt 0 ]; then
  for recipe in "$@"; do
    case "$recipe" in
      etcd_image | pause | busybox_image | nonroot) "$recipe" ;;
      *) echo "e2e-images: $recipe: not a recipe that builds alone (etcd_image, pause, busybox_image, nonroot)" >&2; exit 2 ;;
    esac
  done
  exit 0
fi
agnhost
busybox_image
nginx 1.14-alpine
nginx 1.15-alpine
httpd 2.4.38-alpine
httpd 2.4.39-alpine
nonewprivs
nonroot
update_demo nautilus
update_demo kitten
sample_apiserver
etcd_image
pause
