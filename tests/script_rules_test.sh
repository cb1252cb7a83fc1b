#!/usr/bin/env bash
# Two rules of the kit's bash (docs/STYLE.md: "Orchestration only: logic lives in C++ or Perl";
# issue 32, "Statistics in one language"):
#  1. No bash script of the repository is over 400 lines (a script that grows past it is split:
#     cohesive function groups go to controller/lib/*.sh).
#  2. No awk in controller/ except to pick fields or lines by their text (no arithmetic): medians, ratios, rates, sums and any
#     other arithmetic on measurements are the post-processor's Perl (postprocess/bb-bench-summary,
#     lib/BrokerBench/Stats.pm and friends). The awk lines left are listed below, each with why;
#     one that no longer matches fails the test too, so that the list cannot go stale.
# A bash script is a file of git's (else every file outside build*/ and var/) named *.sh or whose
# first line runs bash, or a sourced one that says "# shellcheck shell=bash".
#
# First it checks itself on a made-up tree (a 401-line script, the medians controller/bench had
# in awk, an exception, a stale exception), so that it cannot pass by finding nothing; then it
# scans the repository.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT
readonly MAX_LINES=400

# The awk left in controller/: "PATH<TAB>TEXT ON THE LINE<TAB>why".
readonly -a AWK_EXCEPTIONS=(
  $'controller/lib/results.sh\tawk -v since=\tkeeps the lines of PostgreSQL\'s server log from the run\'s start on: a filter on each line\'s timestamp text, no arithmetic'
)

# Every file of tree $1, relative to it.
list_files() {
  local dir="$1"
  if [[ -e "${dir}/.git" ]] && command -v git >/dev/null; then
    git -C "${dir}" ls-files --cached --others --exclude-standard
  else
    (cd "${dir}" && find . -type f -not -path './.git/*' -not -path './build*' -not -path './var/*' |
      sed 's|^\./||')
  fi | sort
}

# Whether the file $1 is a bash script.
is_bash() {
  [[ "$1" == *.sh ]] && return 0
  local first
  IFS= read -r first <"$1" 2>/dev/null || return 1
  [[ "${first}" =~ ^#!.*bash || "${first}" == '# shellcheck shell=bash' ]]
}

# Prints a line per broken rule in tree $1; then "stale exception: ..." for an exception that
# matched nothing.
scan() {
  local dir="$1" f n
  local -a files=()
  mapfile -t files < <(list_files "${dir}")
  [[ ${#files[@]} -gt 0 ]] || { echo "script_rules_test: no files found in ${dir}" >&2; return 2; }
  cd "${dir}"
  for f in "${files[@]}"; do
    if [[ ! -f "${f}" ]] || ! is_bash "${f}"; then continue; fi
    n=$(wc -l <"${f}")
    ((n <= MAX_LINES)) || printf '%s: %s lines (at most %s)\n' "${f}" "${n}" "${MAX_LINES}"
  done
  local -A used=()
  local hit e path text excepted
  while IFS= read -r hit; do
    excepted=""
    for e in "${AWK_EXCEPTIONS[@]}"; do
      IFS=$'\t' read -r path text _ <<<"${e}"
      if [[ "${hit}" == "${path}:"* && "${hit}" == *"${text}"* ]]; then excepted=1; used["${e}"]=1; fi
    done
    [[ -n "${excepted}" ]] || printf 'awk in controller/: %s\n' "${hit}"
  done < <(for f in "${files[@]}"; do
             [[ "${f}" == controller/* && -f "${f}" ]] && printf '%s\0' "${f}"
           done | xargs -0 -r grep -n -H -w -e awk -- || true)
  for e in "${AWK_EXCEPTIONS[@]}"; do
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
lacks() { ! grep -q -F -- "$2" <<<"$1"; }

self_test() {
  local tree out i
  tree=$(mktemp -d)
  # shellcheck disable=SC2064  # the path is fixed now
  trap "rm -rf -- '${tree}'" RETURN
  mkdir -p "${tree}/controller/lib" "${tree}/tests" "${tree}/postprocess"
  # What controller/bench had before issue 32: medians in awk.
  cat >"${tree}/controller/bench" <<'EOF'
#!/usr/bin/env bash
median() { sort -g | awk '{ v[NR] = $1 } END { print v[(NR + 1) / 2] }'; }
EOF
  { echo '#!/usr/bin/env bash'; for ((i = 1; i < 401; i++)); do echo ':'; done; } >"${tree}/controller/long"
  { echo '#!/bin/bash'; for ((i = 1; i < 400; i++)); do echo ':'; done; } >"${tree}/controller/just-fits"
  { echo '# shellcheck shell=bash'; for ((i = 1; i < 401; i++)); do echo ':'; done; } >"${tree}/controller/lib/long.sh"
  { for ((i = 0; i < 401; i++)); do echo ':'; done; } >"${tree}/tests/long_test.sh"
  { echo '#!/usr/bin/env perl'; for ((i = 1; i < 500; i++)); do echo '1;'; done; } >"${tree}/postprocess/bb-long"
  printf '%s\n' "    awk -v since=\"\${t}\" '\$1 >= since' \"\${current}\"" >"${tree}/controller/lib/results.sh"
  printf '%s\n' "awk '{ n += \$2 } END { print n }' file" >"${tree}/tests/sum_test.sh"
  out=$(scan "${tree}")
  check "self-test: the medians in awk are found" has "${out}" 'awk in controller/: controller/bench:2:'
  check "self-test: a bash script of 401 lines is found" has "${out}" 'controller/long: 401 lines'
  check "self-test: a sourced script (shell=bash) of 401 lines is found" has "${out}" 'controller/lib/long.sh: 401 lines'
  check "self-test: a .sh file of 401 lines is found" has "${out}" 'tests/long_test.sh: 401 lines'
  check "self-test: 400 lines pass" lacks "${out}" 'just-fits'
  check "self-test: a Perl program is no bash script" lacks "${out}" 'bb-long'
  check "self-test: awk outside controller/ is not this test's business" lacks "${out}" 'sum_test'
  check "self-test: an exception passes" lacks "${out}" 'controller/lib/results.sh:'
  rm "${tree}/controller/lib/results.sh"
  : >"${tree}/controller/lib/results.sh"
  out=$(scan "${tree}")
  check "self-test: an exception that matches nothing is stale" has "${out}" \
    "stale exception: controller/lib/results.sh"
}

main() {
  self_test
  local out
  out=$(scan "${ROOT}")
  if [[ -n "${out}" ]]; then
    printf 'FAIL: these break the rules (split the script; move the arithmetic to postprocess/):\n%s\n' "${out}"
    FAILURES=$((FAILURES + 1))
  else
    printf 'ok: no bash script over %s lines, no awk in controller/ but the listed text filters\n' "${MAX_LINES}"
  fi
  [[ ${FAILURES} -eq 0 ]] || { printf '%d check(s) failed\n' "${FAILURES}"; exit 1; }
}

main "$@"
