#!/usr/bin/env bash
# Builds, locally, a container image of Debian's docker-registry (the CNCF distribution registry)
# for the image-pull tests: the registry binary with the shared libraries `ldd` names, and a
# config that serves TLS and htpasswd (bcrypt) basic auth from files the test mounts:
#
#   /certs/tls.crt, /certs/tls.key   the server's certificate and key
#   /auth/htpasswd                   the users
#
# on port 5000, storing into /var/lib/registry. Installs docker-registry with apt when missing.
# Idempotent: an image carrying this script's recipe label is kept. Prints the image's name.
#
# Usage: deploy/scripts/registry-image.sh
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
RECIPE=1
LABEL=io.jkubelet.registry-image

if ! command -v docker-registry >/dev/null; then
  echo "registry-image: installing docker-registry" >&2
  if [ "$(id -u)" -ne 0 ]; then
    echo "registry-image: need root to install docker-registry" >&2
    exit 1
  fi
  apt-get update -qq >&2
  # policy-rc.d aside, the package's own service is not wanted: the tests run it in a container.
  apt-get install -y -qq --no-install-recommends docker-registry >&2
fi
bin=$(command -v docker-registry)
version=$(dpkg-query -W -f '${Version}' docker-registry 2>/dev/null | sed 's/[+~].*//')
image=jkubelet/registry:${version:-local}

if [ "$(docker image inspect --format "{{index .Config.Labels \"$LABEL\"}}" "$image" 2>/dev/null)" = "$RECIPE" ]; then
  echo "$image"
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root/bin" "$root/etc/docker/registry" "$root/certs" "$root/auth" "$root/tmp" \
  "$root/var/lib/registry" "$root/proc" "$root/sys" "$root/dev"
chmod 1777 "$root/tmp"
cp "$bin" "$root/bin/registry"
# A dynamic binary takes its loader and libraries along, at the paths ldd gives.
for lib in $(ldd "$bin" 2>/dev/null | grep -o '/[^ ]*' || true); do
  mkdir -p "$root$(dirname "$lib")"
  cp -L "$lib" "$root$lib"
done
cat >"$root/etc/docker/registry/config.yml" <<'YAML'
version: 0.1
log:
  level: info
  fields:
    service: registry
storage:
  filesystem:
    rootdirectory: /var/lib/registry
  delete:
    enabled: true
http:
  addr: :5000
  tls:
    certificate: /certs/tls.crt
    key: /certs/tls.key
  headers:
    X-Content-Type-Options: [nosniff]
auth:
  htpasswd:
    realm: jkubelet-test-registry
    path: /auth/htpasswd
YAML
echo "registry-image: building $image from $bin" >&2
tar -C "$root" -c . | docker import \
  --change 'ENTRYPOINT ["/bin/registry"]' \
  --change 'CMD ["serve", "/etc/docker/registry/config.yml"]' \
  --change 'EXPOSE 5000' \
  --change "LABEL $LABEL=$RECIPE" - "$image" >/dev/null
echo "$image"
