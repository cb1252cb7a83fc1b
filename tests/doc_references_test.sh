#!/usr/bin/env bash
# Every reference in the kit points at something a clone has: files in this repository, or
# TPC-E clause numbers. It fails on a path outside the repository (../shared, /work/...), on a
# section of a reference document the clone lacks ("reference §4.4", "§5.3", TPCE-REFERENCE),
# and on a Markdown file named anywhere that exists nowhere in the repository (DESIGN.md).
#
# First it checks itself on a made-up tree with one bad line of each kind, so that it cannot
# pass by finding nothing; then it scans the repository (git's files in a checkout, else every
# file outside build*/ and var/).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT
readonly SELF="tests/doc_references_test.sh"

# Text files of tree $1, one path per line, relative to it.
list_files() {
  local dir="$1"
  if [[ -e "${dir}/.git" ]] && command -v git >/dev/null; then
    git -C "${dir}" ls-files --cached --others --exclude-standard
  else
    (cd "${dir}" && find . -type f -not -path './.git/*' -not -path './build*' -not -path './var/*' \
      | sed 's|^\./||')
  fi | grep -v -x -F "${SELF}" | sort
}

# Prints "path:line: text" for every bad reference in tree $1; prints nothing when all are good.
scan() {
  local dir="$1"
  local -a files=()
  mapfile -t files < <(list_files "${dir}")
  [[ ${#files[@]} -gt 0 ]] || { echo "doc_references_test: no files found in ${dir}" >&2; return 2; }
  cd "${dir}"
  # Paths and documents outside the repository; sections of a reference it does not have.
  grep -s -I -n -H -E '\.\./shared|/work/(shared|main)|TPCE-REFERENCE|(reference|ref) §|§ ?[0-9]' \
    -- "${files[@]}" || true
  # Markdown files by name: each must exist in the repository (by path, or by its name).
  local -A have=()
  local f
  for f in "${files[@]}"; do
    [[ "${f}" != *.md ]] || { have["${f}"]=1; have["${f##*/}"]=1; }
  done
  local hit name
  while IFS= read -r hit; do
    name="${hit#*:*:}"
    [[ -n "${have[${name}]:-}" || -n "${have[${name##*/}]:-}" ]] || echo "${hit%:*}: ${name} is not in the repository"
  done < <(grep -s -I -n -H -o -E '[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.md\b' -- "${files[@]}" || true)
}

self_test() {
  local tmp
  tmp="$(mktemp -d)"
  mkdir -p "${tmp}/docs" "${tmp}/src"
  printf '# Architecture\n' >"${tmp}/docs/ARCHITECTURE.md"
  cat >"${tmp}/src/good.cpp" <<'GOOD'
// Market-Watch (clause 3.3.4); see docs/ARCHITECTURE.md and ARCHITECTURE.md.
GOOD
  cat >"${tmp}/src/bad.cpp" <<'BAD'
// The design is in ../shared/DESIGN.md.
// Market-Watch (reference §4.4).
// The mix deck (§5.2).
// See spec/TPCE-REFERENCE.md.
// As STYLE.md says.
BAD
  local out expected
  out="$(scan "${tmp}")"
  rm -rf "${tmp}"
  for expected in 'src/bad.cpp:1:' 'src/bad.cpp:2:' 'src/bad.cpp:3:' 'src/bad.cpp:4:' \
    'src/bad.cpp:1: ../shared/DESIGN.md is not' 'src/bad.cpp:5: STYLE.md is not'; do
    if [[ "${out}" != *"${expected}"* ]]; then
      printf 'FAIL: the self-test missed %s; it found:\n%s\n' "${expected}" "${out}" >&2
      return 1
    fi
  done
  if [[ "${out}" == *good.cpp* ]]; then
    printf 'FAIL: the self-test flagged a good reference:\n%s\n' "${out}" >&2
    return 1
  fi
}

main() {
  self_test
  local out
  out="$(scan "${ROOT}")"
  if [[ -n "${out}" ]]; then
    printf 'FAIL: references to what a clone does not have (cite a file in the repository or a TPC-E clause):\n%s\n' "${out}" >&2
    exit 1
  fi
  echo "PASS: every reference points into the repository or at a clause"
}

main "$@"
