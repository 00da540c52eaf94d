#!/usr/bin/env bash
# Container listing benchmark (issue 14: idle CPU at 110 pods): µs of CPU and bytes allocated per
# listing of 220 labelled containers (110 pods, a sandbox and a container each), the streamed way
# DockerRuntime.listContainers reads it and through docker-java's listContainersCmd
# (agent/src/test/java/io/jkubelet/agent/bench/ListContainersBench.java). Needs the local engine and
# the jkubelet/pause:3.2 image (deploy/scripts/docker-up.sh); its containers carry
# jkubelet.test=list and are removed at the end.
#
# Usage: deploy/scripts/bench-list.sh [N] [PODS]     (defaults: 500 110)
# JAVA_TOOL_OPTIONS=-XX:TieredStopAtLevel=1 measures with the launcher's client compiler only.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh"
bench_build
bench_java ListContainersBench "$@"
