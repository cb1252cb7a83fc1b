# shellcheck shell=bash
# Assertions for the controller's shell tests: each check prints "ok: NAME" or
# "FAILED: NAME" and is counted; check_summary names the failed ones again (CI shows a long
# output's head and tail only), prints the tally and fails when any failed.
# Sourced, never run.

CHECK_TOTAL=0
CHECK_FAILED=() # the names of the failed checks; ${#CHECK_FAILED[@]} is how many

# check NAME COMMAND [ARGS...]: passes when the command succeeds.
check() {
  local name="$1"
  shift
  CHECK_TOTAL=$((CHECK_TOTAL + 1))
  if "$@"; then
    printf 'ok: %s\n' "${name}"
  else
    printf 'FAILED: %s\n' "${name}"
    CHECK_FAILED+=("${name}")
  fi
}

nonempty() { [[ -s "$1" ]]; }
has_line() { grep -qE -- "$2" "$1"; }
lacks_line() { ! grep -qE -- "$2" "$1"; }
is_png() { [[ -s "$1" && "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" == 89504e470d0a1a0a ]]; }

check_summary() {
  local failed=${#CHECK_FAILED[@]}
  ((failed == 0)) || printf 'FAILED: %s\n' "${CHECK_FAILED[@]}"
  printf '%d of %d checks passed\n' $((CHECK_TOTAL - failed)) "${CHECK_TOTAL}"
  ((failed == 0))
}
