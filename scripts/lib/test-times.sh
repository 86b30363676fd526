# Sourced by scripts/test: times its steps and prints where the wall time went, one row per step
# and per Maven module (from Maven's reactor summary), with each module's tests run and skipped
# (from its surefire summary line, or its reports when modules build side by side).
#
#   test_times_start                      # the clock starts
#   test_times_step NAME COMMAND...       # runs and times a step; returns its status
#   test_times_maven LOG COMMAND...       # runs Maven, its output also into LOG; returns its status
#   test_times_report TIER STATUS [TIMES] # prints the table; TIMES: a file with the output of bash's
#                                         # `times`, run by the calling shell (the CPU time of its children)
#
# When modules build side by side (TEST_TIMES_SIDE_BY_SIDE=1) their surefire lines interleave, so
# each module's tests run and skipped come from its surefire reports instead: those newer than the
# file TEST_TIMES_SINCE (without it, the total only).

_tt_now() {
  if [ -n "${EPOCHREALTIME:-}" ]; then echo "${EPOCHREALTIME/,/.}"; else date +%s.%N; fi
}

_tt_load() {
  cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime | sed 's/.*load average[s]*: //'
}

test_times_start() {
  _tt_start=$(_tt_now)
  _tt_load_start=$(_tt_load)
  _tt_names=()
  _tt_secs=()
  _tt_maven_log=""
}

_tt_record() { # name start
  _tt_names+=("$1")
  _tt_secs+=("$(awk -v a="$2" -v b="$(_tt_now)" 'BEGIN { printf "%.1f", b - a }')")
}

test_times_step() {
  local name=$1 t0 rc=0
  shift
  t0=$(_tt_now)
  "$@" || rc=$?
  _tt_record "$name" "$t0"
  return "$rc"
}

test_times_maven() {
  local log=$1 t0 rc=0
  shift
  _tt_maven_log=$log
  t0=$(_tt_now)
  set +e
  "$@" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  set -e
  _tt_record maven "$t0"
  return "$rc"
}

test_times_report() {
  local tier=$1 status=$2 times_file=${3:-} wall i verdict cpu=
  wall=$(awk -v a="$_tt_start" -v b="$(_tt_now)" 'BEGIN { printf "%.1f", b - a }')
  verdict=PASSED
  [ "$status" = 0 ] || verdict="FAILED (exit status $status)"
  # the second line of `times`: user and system time of every process the script waited for
  if [ -n "$times_file" ] && [ -f "$times_file" ]; then
    cpu=$(sed -n 2p "$times_file" | awk '{ s = 0; for (i = 1; i <= 2; i++) { split($i, p, "m"); s += p[1] * 60 + p[2] } printf "%.0f", s }')
  fi
  {
    for i in "${!_tt_names[@]}"; do
      printf 'step\t%s\t%s\n' "${_tt_names[$i]}" "${_tt_secs[$i]}"
    done
    if [ -n "$_tt_maven_log" ] && [ -f "$_tt_maven_log" ]; then
      # each module's name (what the reactor summary shows) and artifactId, from its pom, so that
      # modules Maven skipped are named too
      local m
      {
        for m in . $(sed -n 's:^ *<module>\(.*\)</module>.*:\1:p' pom.xml); do
          [ -f "$m/pom.xml" ] || continue
          local id
          id=$(sed '/<parent>/,/<\/parent>/d' "$m/pom.xml" | sed -n 's:^ *<artifactId>\(.*\)</artifactId>.*:\1:p' | head -1)
          printf 'map\t%s\t%s\n' "$(sed -n 's:^ *<name>\(.*\)</name>.*:\1:p' "$m/pom.xml" | head -1)" "$id"
          if [ -n "${TEST_TIMES_SIDE_BY_SIDE:-}" ] && [ -n "${TEST_TIMES_SINCE:-}" ] && [ -d "$m/target/surefire-reports" ]; then
            # each report this run wrote: its <testcase> elements, and the <skipped> among them (the
            # suite's own counts leave out the kit's rules, which JUnit reports under nested classes)
            find "$m/target/surefire-reports" -name 'TEST-*.xml' -newer "$TEST_TIMES_SINCE" -print0 \
              | xargs -0 -r grep -h -o -E '<testcase |<skipped' \
              | awk -v id="$id" '/testcase/ { tests++ } /skipped/ { skipped++ }
                END { if (tests) printf "counts\t%s\t%d\t%d\n", id, tests, skipped }'
          fi
        done
        sed 's/\x1b\[[0-9;]*m//g' "$_tt_maven_log"
      } | awk -v sidebyside="${TEST_TIMES_SIDE_BY_SIDE:-}" '
        # "[INFO] ---------< io.blockxfer:transport-ucx >---------" then "[INFO] Building <name> <version> [i/n]"
        /^map\t/ { split($0, f, "\t"); artifact[f[2]] = f[3]; next }
        /^counts\t/ { split($0, f, "\t"); tests[f[2]] = f[3]; skipped[f[2]] = f[4]; next }
        /^\[INFO\] -+< [^ ]+:[^ ]+ >-+$/ { id = $0; sub(/^[^<]*< [^:]+:/, "", id); sub(/ >.*$/, "", id); next }
        /^\[INFO\] Building .* \[[0-9]+\/[0-9]+\]$/ && id != "" {
          name = $0; sub(/^\[INFO\] Building /, "", name); sub(/[[:space:]]+\[[0-9]+\/[0-9]+\]$/, "", name)
          sub(/[[:space:]]+[^[:space:]]+$/, "", name)   # the version
          # the map from the poms comes first; with modules side by side these lines interleave
          if (!(name in artifact)) artifact[name] = id
          current = id; results = 0; next
        }
        /Results:$/ { results = 1; next }
        # every module ends its tests with one summary line (the per-class lines carry a time): their
        # sum is the total even when modules build side by side and their lines interleave
        /Tests run: [0-9]+, Failures: [0-9]+, Errors: [0-9]+, Skipped: [0-9]+$/ {
          line = $0; sub(/^.*Tests run: /, "", line); split(line, f, /, [A-Za-z]+: /)
          alltests += f[1]; allskipped += f[4]
        }
        !sidebyside && results && /Tests run: [0-9]+, Failures: [0-9]+, Errors: [0-9]+, Skipped: [0-9]+$/ {
          line = $0; sub(/^.*Tests run: /, "", line); split(line, f, /, [A-Za-z]+: /)
          tests[current] = f[1]; skipped[current] = f[4]; results = 0; next
        }
        # the reactor summary: "[INFO] <name> ....... SUCCESS [03:22 min]"
        /^\[INFO\] .* \.+ (SUCCESS|FAILURE|SKIPPED)/ {
          line = $0; sub(/^\[INFO\] /, "", line)
          name = line; sub(/ \.+ (SUCCESS|FAILURE|SKIPPED).*$/, "", name)
          t = line; secs = 0
          if (t ~ /\[.*\]/) {
            sub(/^.*\[[[:space:]]*/, "", t); sub(/\].*$/, "", t)
            unit = t; sub(/^[^[:space:]]+[[:space:]]*/, "", unit); sub(/[[:space:]].*$/, "", t)
            n = split(t, p, ":")
            if (unit == "s") secs = t + 0
            else if (unit == "min") secs = p[1] * 60 + p[2]
            else if (unit == "h") secs = p[1] * 3600 + p[2] * 60 + p[3]
          }
          state = line; sub(/^.* \.+ /, "", state); sub(/[[:space:]].*$/, "", state)
          id = (name in artifact) ? artifact[name] : name
          printf "module\t%s\t%.1f\t%s\t%s\t%s\n", id, secs, ((id in tests) ? tests[id] : ""), ((id in skipped) ? skipped[id] : ""), state
        }
        END { printf "alltests\t%d\t%d\n", alltests, allskipped }'
    fi
  } | awk -F'\t' -v wall="$wall" -v cpu="$cpu" -v tier="$tier" -v verdict="$verdict" \
        -v cpus="$(nproc 2>/dev/null || echo '?')" -v load0="$_tt_load_start" -v load1="$(_tt_load)" '
    function row(label, secs, tests, skipped, note,    line) {
      line = sprintf("  %-28s %8.1f %6.1f%% %7s %8s  %s", label, secs, (wall > 0 ? 100 * secs / wall : 0), tests, skipped, note)
      sub(/[[:space:]]+$/, "", line)
      print line
    }
    $1 == "step" { n++; label[n] = $2; secs[n] = $3 }
    $1 == "alltests" { alltests = $2; allskipped = $3 }
    $1 == "module" { m++; mlabel[m] = $2; msecs[m] = $3; mtests[m] = $4; mskip[m] = $5; mstate[m] = $6; msum += $3 }
    END {
      printf "\nscripts/test: %s tier %s in %d:%02d (%.1f s wall%s); %s CPUs, load average %s at the start, %s at the end\n",
        tier, verdict, int(wall / 60), int(wall % 60), wall, (cpu == "" ? "" : ", " cpu " s of CPU"), cpus, load0, load1
      printf "  %-28s %8s %7s %7s %8s\n", "step / module", "seconds", "share", "tests", "skipped"
      for (i = 1; i <= n; i++) {
        if (label[i] != "maven") { row(label[i], secs[i], "", "", ""); other -= secs[i]; continue }
        if (m == 0) { row("maven", secs[i], "", "", "no reactor summary"); other -= secs[i]; continue }
        row("maven", secs[i], "", "", "")
        for (j = 1; j <= m; j++) {
          row("  " mlabel[j], msecs[j], mtests[j], mskip[j], (mstate[j] == "SUCCESS" ? "" : mstate[j]))
          tt += mtests[j]; ts += mskip[j]
        }
        if (msum <= secs[i]) row("  (Maven itself)", secs[i] - msum, "", "", "")
        else printf "  (modules built side by side: their times overlap, %.1f s in all)\n", msum
        other -= secs[i]
      }
      other += wall
      row("(between steps)", other, "", "", "")
      row("total", wall, alltests, allskipped, "")
    }'
}
