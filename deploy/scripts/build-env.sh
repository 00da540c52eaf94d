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

# jkubelet_built: builds the agent's distribution (agent/target/jkubelet) when it is missing or
# older than a source. The agent's jar is what a build rewrites; the launcher is copied only when it
# changed, so its age says nothing.
JKUBELET_TOP=$(cd "$here/../.." && pwd)
jkubelet_built() {
  local top=$JKUBELET_TOP launcher jar
  launcher=$top/agent/target/jkubelet/bin/jkubelet
  jar=$top/agent/target/jkubelet/lib/jkubelet-agent.jar
  if [ ! -x "$launcher" ] || [ ! -f "$jar" ] ||
    [ -n "$(find "$top/agent/src" "$top/config/src" -newer "$jar" -print -quit)" ]; then
    echo "build-env: building jkubelet (mvn -pl config,agent -DskipTests package)" >&2
    (cd "$top" && mvn -B -ntp -q -pl config,agent -DskipTests package) >&2
  fi
}
