#!/usr/bin/env bash
# The upstream kubelet v1.20.2 for reference runs, built once per machine from the source tree
# that k8s-up.sh fetched, into the cache (bin/kubelet-ref), as k8s-up.sh builds the control plane
# (GOPATH mode, its Go cache, under the cache's build lock). One change, through an overlay and not
# in the source: dockershim gives sandboxes oom_score_adj -998, which a machine that refuses a
# negative oom_score_adj (as this project's test VM) fails to start; 0 there changes nothing the
# comparisons measure. The version it reports is set to v1.20.2 (the tree has no git data to give
# it, and it would say v0.0.0-master).
#
# Usage: deploy/scripts/kubelet-ref.sh     Prints the binary's path on stdout.
set -euo pipefail
cache=${JKUBELET_K8S_CACHE:-/var/cache/jkubelet-k8s}
bin=$cache/bin/kubelet-ref
if [ ! -x "$bin" ]; then
  exec 9>"$cache/build.lock"
  flock 9
  if [ ! -x "$bin" ]; then
    echo "kubelet-ref: building the upstream kubelet v1.20.2 into $bin (once per machine)" >&2
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    export GOPATH=$cache/src/gopath GOCACHE=$cache/gocache GO111MODULE=off HOME=$cache/home
    cd "$GOPATH/src/k8s.io/kubernetes"
    f=$PWD/pkg/kubelet/dockershim/docker_sandbox.go
    sed 's/defaultSandboxOOMAdj int = -998/defaultSandboxOOMAdj int = 0/' "$f" >"$work/docker_sandbox.go"
    printf '{"Replace":{"%s":"%s"}}' "$f" "$work/docker_sandbox.go" >"$work/overlay.json"
    v=k8s.io/kubernetes/vendor/k8s.io/component-base/version
    nice go build -overlay "$work/overlay.json" \
      -ldflags "-X $v.gitVersion=v1.20.2 -X $v.gitMajor=1 -X $v.gitMinor=20 -X $v.gitTreeState=clean" \
      -o "$bin.tmp" ./cmd/kubelet >&2
    mv "$bin.tmp" "$bin"
  fi
  exec 9>&-
fi
echo "$bin"
