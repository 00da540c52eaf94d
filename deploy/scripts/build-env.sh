#!/usr/bin/env bash
# Sourced by the other scripts: a JDK 21+ as JAVA_HOME, Maven installed, Docker and the local
# images ready. Idempotent.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
JAVA_HOME=$("$here/java-home.sh") || exit 1
export JAVA_HOME
export PATH="$JAVA_HOME/bin:$PATH"
# Maven itself trips JDK 24+'s Unsafe warnings; they are noise.
if "$JAVA_HOME/bin/java" --sun-misc-unsafe-memory-access=allow -version >/dev/null 2>&1; then
  export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
fi
if ! command -v mvn >/dev/null; then
  echo "build-env: installing maven" >&2
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 && \
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends maven >&2
fi
"$here/docker-up.sh"
