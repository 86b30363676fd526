# Sourced by the project's scripts: sets JAVA_HOME to a JDK >= 25 and puts it first on PATH.
# Order: JAVA_HOME if it is 25 or newer, then JDKs under /usr/lib/jvm (Temurin 25 first), then
# `java` on PATH. Stops with a one-line message when none is found.

blockxfer_jdk_major() { # java-executable -> major version, or nothing
  "$1" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2; exit}' | cut -d. -f1
}

blockxfer_find_jdk() {
  local candidate major
  for candidate in "${JAVA_HOME:-}" /usr/lib/jvm/temurin-25* /usr/lib/jvm/*-25* /usr/lib/jvm/*; do
    [ -n "$candidate" ] && [ -x "$candidate/bin/java" ] && [ -x "$candidate/bin/javac" ] || continue
    major=$(blockxfer_jdk_major "$candidate/bin/java")
    if [ -n "$major" ] && [ "$major" -ge 25 ] 2>/dev/null; then
      echo "$candidate"
      return 0
    fi
  done
  if command -v java >/dev/null 2>&1 && command -v javac >/dev/null 2>&1; then
    major=$(blockxfer_jdk_major "$(command -v java)")
    if [ -n "$major" ] && [ "$major" -ge 25 ] 2>/dev/null; then
      dirname "$(dirname "$(readlink -f "$(command -v javac)")")"
      return 0
    fi
  fi
  return 1
}

if ! BLOCKXFER_JDK=$(blockxfer_find_jdk); then
  echo "blockxfer needs a JDK 25 or newer: set JAVA_HOME to one (none found in JAVA_HOME, /usr/lib/jvm or on PATH)" >&2
  exit 1
fi
export JAVA_HOME="$BLOCKXFER_JDK"
export PATH="$JAVA_HOME/bin:$PATH"
