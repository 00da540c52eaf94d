#!/usr/bin/env bash
# Runs the whole test suite: unit tests, then the integration and end-to-end tests against the
# real Docker Engine (started here when none runs). Extra arguments go to Maven.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$root/deploy/scripts/build-env.sh"
cd "$root"
exec mvn -B -ntp verify "$@"
