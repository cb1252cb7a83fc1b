#!/usr/bin/env bash
# No program or script of the kit reads another program's log wording (docs/STYLE.md: programs
# read files and markers; issue 32). A log line is written for people and may be reworded at
# any time; what a program needs from another comes from a file made for it: the mix log, the
# emulators' end-of-run records (postprocess/MIXLOG.md), pending-trades.csv, run.conf, a port
# file, a metrics endpoint. Showing a log's last lines to a person (tail, an indenting sed) is
# fine; matching its wording is not.
#
# It scans the kit's programs and scripts (brokerbench, controller/, postprocess/'s scripts and
# modules, the C++ outside tests), not the tests (which assert on messages) nor the docs, for
#  1. a log line's wording used as a pattern: a regex anchored on the emulators' summary,
#     dispatch or stop lines, spdlog's "LEVEL: " prefix before their words, their counts;
#  2. a component's log file (NAME.log, component_log, C_LOG) on a line that parses it (grep,
#     sed other than indenting, awk, perl, slurp, open, =~).
# Known exceptions are listed below, each with its reason; one that no longer matches fails
# the test too, so that the list cannot go stale.
#
# First it checks itself on a made-up tree with one bad line of each kind (the readers this
# kit had before issue 32), so that it cannot pass by finding nothing; then it scans the
# repository (git's files in a checkout, else every file outside build*/ and var/).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT

# 1: the wording of the emulators' log lines as a pattern.
readonly WORDING='\^ ?\(?(summary|dispatch|stopped)\b|(info|warn|error)\\?: (stopped|pending|summary|elapsed)|stopped: \\?\(|orders received \\\(|; sent \\?\(|, rows \\?\('
# 2: a log file named on a line that parses it.
readonly LOG_NAME='\b[a-z_-]+\.log\b|component_log|C_LOG\['
readonly PARSER='\b(grep|sed|awk|perl|slurp[a-z_]*|open)\b|=~'

# Known exceptions: "PATH<TAB>TEXT ON THE LINE<TAB>why".
readonly -a EXCEPTIONS=(
  $'controller/pgcluster\tgrep -q "could not bind"\tPostgreSQL\'s own startup log (a third party\'s): the only sign that its port is taken'
  $'controller/lib/database.sh\tgrep \'^bb-loader: \'\tthe loader\'s one-line error (bb::Fail, "program: message") quoted in the run\'s failure message; issue 32 leaves it'
)

# The kit's programs and scripts in tree $1, one path per line, relative to it.
list_files() {
  local dir="$1"
  if [[ -e "${dir}/.git" ]] && command -v git >/dev/null; then
    git -C "${dir}" ls-files --cached --others --exclude-standard
  else
    (cd "${dir}" && find . -type f -not -path './.git/*' -not -path './build*' -not -path './var/*' |
      sed 's|^\./||')
  fi | grep -E '^(brokerbench|controller/.*|postprocess/(bb-[a-z-]+|lib/.*\.pm)|(brokerage_house|customer_emulator|market_emulator|loader|common|conninfo)/.*\.(cpp|h))$' |
    grep -v -E '_test\.cpp$' | sort
}

# Prints "path:line: text" for every line of tree $1 that reads log wording, exceptions left out;
# then "stale exception: ..." for an exception that matched nothing.
scan() {
  local dir="$1"
  local -a files=()
  mapfile -t files < <(list_files "${dir}")
  [[ ${#files[@]} -gt 0 ]] || { echo "log_wording_test: no files found in ${dir}" >&2; return 2; }
  cd "${dir}"
  local -a hits=()
  mapfile -t hits < <(
    grep -s -I -n -H -E -e "${WORDING}" -- "${files[@]}" || true
    # An indenting sed (sed 's/^/    /') shows lines, it does not parse them.
    grep -s -I -n -H -E -e "${LOG_NAME}" -- "${files[@]}" | while IFS= read -r line; do
      sed -E "s/sed( -u)? 's\/\^\/ *\/'//g" <<<"${line}" | grep -q -E -e "${PARSER}" &&
        printf '%s\n' "${line}"
    done || true
  )
  local -A used=()
  local -a bad=()
  local hit e path text excepted line
  for hit in "${hits[@]}"; do
    excepted=""
    for e in "${EXCEPTIONS[@]}"; do
      IFS=$'\t' read -r path text _ <<<"${e}"
      if [[ "${hit}" == "${path}:"* && "${hit}" == *"${text}"* ]]; then excepted=1; used["${e}"]=1; fi
    done
    [[ -n "${excepted}" ]] || bad+=("${hit}")
  done
  [[ ${#bad[@]} -eq 0 ]] || printf '%s\n' "${bad[@]}" | sort -u
  for e in "${EXCEPTIONS[@]}"; do
    IFS=$'\t' read -r path text _ <<<"${e}"
    [[ ! -e "${path}" || -n "${used[${e}]:-}" ]] || printf 'stale exception: %s: %s\n' "${path}" "${text}"
  done
}

FAILURES=0
check() {
  local what="$1"; shift
  if "$@"; then printf 'ok: %s\n' "${what}"; else printf 'FAIL: %s\n' "${what}"; FAILURES=$((FAILURES + 1)); fi
}
has() { grep -q -F -- "$2" <<<"$1"; }
lacks() { ! grep -q "$2" -- "$3" <<<"$1"; }

self_test() {
  local tree out
  tree=$(mktemp -d)
  # shellcheck disable=SC2064  # the path is fixed now
  trap "rm -rf -- '${tree}'" RETURN
  mkdir -p "${tree}/controller/lib" "${tree}/postprocess/lib/BrokerBench" "${tree}/tests" "${tree}/docs"
  # What the kit read before issue 32, one line each.
  cat >"${tree}/controller/run" <<'EOF'
    grep -E '^(summary|dispatch)' "$(component_log "${i}")" | sed 's/^/    /' || true
    tail -n 5 "${log}" | sed 's/^/    /' >&2
EOF
  cat >"${tree}/controller/bench-ce" <<'EOF'
    /^summary:/ { for (i = 1; i <= NF; i++) if ($i == "rows") rows = $(i + 1) }
EOF
  cat >"${tree}/postprocess/lib/BrokerBench/Reconcile.pm" <<'EOF'
    my $text = slurp_log("$r->{results_dir}/$d->{dir}/mee.log") // '';
    if ($text =~ /^\S+ \S+ \S+ info: stopped: (\d+) orders received \((\d+) limit/m) {
    } elsif ($summary =~ /; sent (\d+), rows (\d+),/) {
EOF
  cat >"${tree}/postprocess/lib/BrokerBench/RunCopies.pm" <<'EOF'
      spew($dst, slurp("$from/$rel") =~ s/stopped: (\d+) orders received/"stopped: "/ger);
EOF
  # Fine: a message naming a log, a tail shown to people, a test, a document.
  cat >"${tree}/controller/lib/fine.sh" <<'EOF'
    die "bench: the server exited (log: ${dir}/bh.log)"
    tail -n +1 --pid="${pid}" -f "${RESULTS}/db/loader.log" 2>/dev/null | sed -u 's/^/    /' &
EOF
  printf '%s\n' "grep -E '^summary' ce.log" >"${tree}/tests/run_test.sh"
  printf '%s\n' "the summary line: grep '^summary:' ce.log" >"${tree}/docs/notes.txt"
  printf '%s\n' "    grep -q \"could not bind\" \"\${dir}/log/startup.log\"" >"${tree}/controller/pgcluster"
  cat >"${tree}/controller/lib/database.sh" <<'EOF'
    fail "the loader failed (exit ${rc})" "${RESULTS}/db/loader.log"
EOF
  out=$(scan "${tree}")
  check "self-test: the controller's grep of a component's log" has "${out}" 'controller/run:1:'
  check "self-test: bench ce's awk on the summary line" has "${out}" 'controller/bench-ce:1:'
  check "self-test: the report's read of mee.log" has "${out}" 'Reconcile.pm:1:'
  check "self-test: the report's match of the stop line" has "${out}" 'Reconcile.pm:2:'
  check "self-test: the report's match of the summary line" has "${out}" 'Reconcile.pm:3:'
  check "self-test: the copy's rewrite of the stop line" has "${out}" 'RunCopies.pm:1:'
  check "self-test: a tail shown to people, a message naming a log, a test and a doc pass" \
    lacks "${out}" -E 'fine\.sh|run_test|notes|controller/run:2:'
  check "self-test: an exception passes" lacks "${out}" -F 'pgcluster:'
  check "self-test: an exception that matches nothing is stale" has "${out}" \
    "stale exception: controller/lib/database.sh"
}

main() {
  self_test
  local out
  out=$(scan "${ROOT}")
  if [[ -n "${out}" ]]; then
    printf 'FAIL: these lines read another program'\''s log wording (read a file made for it instead):\n%s\n' "${out}"
    FAILURES=$((FAILURES + 1))
  else
    printf 'ok: no program or script reads another program'\''s log wording\n'
  fi
  [[ ${FAILURES} -eq 0 ]] || { printf '%d check(s) failed\n' "${FAILURES}"; exit 1; }
}

main "$@"
