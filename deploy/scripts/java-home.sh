#!/usr/bin/env bash
# Prints a JAVA_HOME of a JDK 21 or newer: $JAVA_HOME when it is one, else the first found on
# PATH or in the usual JVM directory. Exits 1 with a message when there is none.
set -euo pipefail
major() { # the major Java version of a java binary, or 0
  "$1" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2; exit}' | cut -d. -f1
}
for java in ${JAVA_HOME:+"$JAVA_HOME/bin/java"} "$(command -v java 2>/dev/null || true)" /usr/lib/jvm/*/bin/java; do
  [ -n "$java" ] && [ -x "$java" ] || continue
  [ -x "$(dirname "$java")/javac" ] || continue
  v=$(major "$java" || echo 0)
  if [ "${v:-0}" -ge 21 ] 2>/dev/null; then
    dirname "$(dirname "$(readlink -f "$java")")"
    exit 0
  fi
done
echo "jkubelet needs a JDK 21 or newer (none found on PATH, in JAVA_HOME or under /usr/lib/jvm)." >&2
echo "Install one (e.g. Temurin 21+) and set JAVA_HOME to it." >&2
exit 1
