# Sourced by scripts/test: times its steps and prints where the wall time went, one row per step
# and per Maven module (from Maven's reactor summary), with each module's tests run and skipped
# (from its surefire summary line, or its reports when modules build side by side), then the long
# test classes (from their surefire lines), each beside its budget in scripts/lib/test-budget.tsv,
# and how far the run is from its tier's budget and, for the full tier, from CI's 90-minute limit.
#
#   test_times_start                      # the clock starts
#   test_times_step NAME COMMAND...       # runs and times a step; returns its status
#   test_times_maven LOG COMMAND...       # runs Maven, its output also into LOG; returns its status
#   test_times_report TIER STATUS [TIMES] # prints the table; TIMES: a file with the output of bash's
#                                         # `times`, run by the calling shell (the CPU time of its children)
#
# When modules build side by side (TEST_TIMES_SIDE_BY_SIDE=1) their surefire lines interleave, so
# each module's tests run and skipped come from its surefire reports instead: those newer than the
# file TEST_TIMES_SINCE (without it, the total only). The test classes' times come from their surefire
# lines in Maven's output.

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
        # each test class'"'"'s time: its surefire line (a kit suite'"'"'s nested classes, Suite$Writes, are part of it)
        /Tests run: [0-9]+, .*Time elapsed: [0-9.,]+ (s|min).* -- in [^$]+$/ {
          line = $0; cls = line; sub(/^.* -- in /, "", cls); sub(/[[:space:]].*$/, "", cls)
          t = line; sub(/^.*Time elapsed: /, "", t); unit = t; sub(/^[0-9.,]+ /, "", unit); sub(/[[:space:]].*$/, "", unit)
          sub(/ .*$/, "", t); gsub(/,/, "", t); t += 0; if (unit == "min") t *= 60
          csecs[cls] += t
        }
        END { for (cls in csecs) printf "class\t%s\t%.1f\n", cls, csecs[cls] }
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
        -v budgets="${TEST_TIMES_BUDGET:-$root/scripts/lib/test-budget.tsv}" -v ci_limit="${TEST_TIMES_CI_LIMIT:-5400}" \
        -v cpus="$(nproc 2>/dev/null || echo '?')" -v load0="$_tt_load_start" -v load1="$(_tt_load)" '
    function mmss(secs) { return sprintf("%d:%02d", int(secs / 60), int(secs % 60)) }
    function row(label, secs, key, tests, skipped, note,    line, b) {
      b = (key in budget) ? budget[key] : ""
      if (b != "" && secs > b) { note = (note == "" ? "" : note "; ") "OVER its budget by " sprintf("%.0f", secs - b) " s"; over++ }
      line = sprintf("  %-44s %8.1f %6.1f%% %7s %7s %8s  %s", label, secs, (wall > 0 ? 100 * secs / wall : 0), b, tests, skipped, note)
      sub(/[[:space:]]+$/, "", line)
      print line
    }
    BEGIN {
      # the budgets of this tier: "tier kind name seconds"
      while ((getline l < budgets) > 0) {
        if (l ~ /^#/ || l ~ /^[[:space:]]*$/) continue
        split(l, f, "\t")
        if (f[1] != tier) continue
        if (f[2] == "total") total_budget = f[4]
        else if (f[2] == "module") budget["module:" f[3]] = f[4]
        else if (f[2] == "class") budget["class:" f[3]] = f[4]
      }
      long_class = (tier == "full" ? 60 : 20)
    }
    $1 == "step" { n++; label[n] = $2; secs[n] = $3 }
    $1 == "alltests" { alltests = $2; allskipped = $3 }
    $1 == "module" { m++; mlabel[m] = $2; msecs[m] = $3; mtests[m] = $4; mskip[m] = $5; mstate[m] = $6; msum += $3 }
    $1 == "class" { c++; clabel[c] = $2; csecs[c] = $3 }
    END {
      printf "\nscripts/test: %s tier %s in %d:%02d (%.1f s wall%s); %s CPUs, load average %s at the start, %s at the end\n",
        tier, verdict, int(wall / 60), int(wall % 60), wall, (cpu == "" ? "" : ", " cpu " s of CPU"), cpus, load0, load1
      printf "  %-44s %8s %7s %7s %7s %8s\n", "step / module", "seconds", "share", "budget", "tests", "skipped"
      for (i = 1; i <= n; i++) {
        if (label[i] != "maven") { row(label[i], secs[i], "module:" label[i], "", "", ""); other -= secs[i]; continue }
        if (m == 0) { row("maven", secs[i], "", "", "", "no reactor summary"); other -= secs[i]; continue }
        row("maven", secs[i], "", "", "", "")
        for (j = 1; j <= m; j++) {
          row("  " mlabel[j], msecs[j], "module:" mlabel[j], mtests[j], mskip[j], (mstate[j] == "SUCCESS" ? "" : mstate[j]))
        }
        if (msum <= secs[i]) row("  (Maven itself)", secs[i] - msum, "", "", "", "")
        else printf "  (modules built side by side: their times overlap, %.1f s in all)\n", msum
        other -= secs[i]
      }
      other += wall
      row("(between steps)", other, "", "", "", "")
      budget["total"] = total_budget
      row("total", wall, "total", alltests, allskipped, "")
      # the long test classes, longest first (a class runs within its module: their shares overlap)
      shown = 0
      for (k = 1; k <= c; k++) order[k] = k
      for (a = 1; a <= c; a++) for (b = a + 1; b <= c; b++) if (csecs[order[b]] > csecs[order[a]]) { t = order[a]; order[a] = order[b]; order[b] = t }
      for (k = 1; k <= c; k++) {
        j = order[k]
        if (csecs[j] < long_class && !(("class:" clabel[j]) in budget)) continue
        if (!shown++) printf "  %-44s %8s %7s %7s\n", "test class (" long_class " s or more, or budgeted)", "seconds", "share", "budget"
        name = clabel[j]; sub(/^io\.blockxfer\./, "", name)
        row("  " name, csecs[j], "class:" clabel[j], "", "", "")
      }
      if (total_budget != "") {
        printf "scripts/test: the %s tier took %s against its budget of %s: %s\n", tier, mmss(wall), mmss(total_budget),
          (wall <= total_budget ? sprintf("%s to spare", mmss(total_budget - wall)) : sprintf("OVER by %s", mmss(wall - total_budget)))
      }
      if (over > 0) printf "scripts/test: %d row%s above over budget (scripts/lib/test-budget.tsv)\n", over, (over == 1 ? "" : "s")
      if (tier == "full") {
        if (wall <= ci_limit) printf "scripts/test: CI stops a run at %s: this one took %s (%.0f%% of it), %s below the limit\n",
          mmss(ci_limit), mmss(wall), 100 * wall / ci_limit, mmss(ci_limit - wall)
        else printf "scripts/test: CI stops a run at %s: this one took %s, OVER the limit by %s\n", mmss(ci_limit), mmss(wall),
          mmss(wall - ci_limit)
        if (wall > 3600) {
          print  "scripts/test: ****************************************************************************"
          printf "scripts/test: ** THE FULL TIER TOOK %s, OVER 60 MINUTES: CI STOPS AT %s.\n", mmss(wall), mmss(ci_limit)
          print  "scripts/test: ** The change that adds a suite pays for it: shorten it, move it, or run it beside"
          print  "scripts/test: ** the suites that wait (docs/contributing.md; scripts/lib/test-budget.tsv)."
          print  "scripts/test: ****************************************************************************"
        }
      }
    }'
}
