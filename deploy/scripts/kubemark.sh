#!/usr/bin/env bash
# Upstream's kubemark v1.20.2 (cmd/kubemark: hollow nodes, a real kubelet on a fake runtime), built
# once per machine from the source tree that k8s-up.sh fetched, into the cache (bin/kubemark), as
# kubelet-ref.sh builds the reference kubelet (GOPATH mode, the cache's Go cache, under its build
# lock, niced: it takes minutes on a loaded machine). bench-scale.sh runs it with --morph=kubelet.
#
# Usage: deploy/scripts/kubemark.sh     Prints the binary's path on stdout.
set -euo pipefail
cache=${JKUBELET_K8S_CACHE:-/var/cache/jkubelet-k8s}
bin=$cache/bin/kubemark
if [ ! -x "$bin" ]; then
  if [ ! -d "$cache/src/gopath/src/k8s.io/kubernetes" ]; then
    echo "kubemark: no source tree in $cache; run deploy/scripts/k8s-up.sh once first" >&2
    exit 1
  fi
  exec 9>"$cache/build.lock"
  flock 9
  if [ ! -x "$bin" ]; then
    echo "kubemark: building upstream's kubemark v1.20.2 into $bin (once per machine)" >&2
    export GOPATH=$cache/src/gopath GOCACHE=$cache/gocache GO111MODULE=off HOME=$cache/home
    cd "$GOPATH/src/k8s.io/kubernetes"
    nice -n 10 go build -o "$bin.tmp" ./cmd/kubemark >&2
    mv "$bin.tmp" "$bin"
  fi
  exec 9>&-
fi
echo "$bin"
