# shellcheck shell=bash
# controller/run's arithmetic of a run, as functions of their arguments only (tested by
# tests/controller/plan_test.sh): the emulators' seeds, the customers each customer emulator
# draws from, and the pacing that offers the nominal throughput. Sourced, never run.

# emulator_seed SEED WHICH: the seed of one emulator, WHICH `mee` or a customer emulator's
# index, derived from the run's SEED; the first customer emulator has the run's own (a
# one-emulator run replays with it).
emulator_seed() {
  case "$2" in
    mee | 0) printf '%s\n' "$1" ;;
    *) printf '%s\n' $(($1 * 1000 + $2)) ;;
  esac
}

# partitions EMULATORS CUSTOMERS: customers per customer emulator (spec 5.4, clause 6.4.2):
# contiguous ranges on load-unit boundaries of at least 5000 customers each, when the database
# is large enough; otherwise every emulator draws from all customers (the run log says so).
# Prints "first count" per emulator, or nothing for no partitioning.
partitions() {
  local n="$1" customers="$2" units=$(($2 / 1000)) i first=1 count
  ((n > 1)) || return 0
  ((units / n >= 5)) || return 0
  # shellcheck disable=SC2017 # whole load units, rounded down on purpose
  for ((i = 0; i < n; i++)); do
    count=$((units / n * 1000))  # whole load units
    ((i < n - 1)) || count=$((customers - first + 1))
    printf '%s %s\n' "${first}" "${count}"
    first=$((first + count))
  done
}

# auto_pacing USERS CUSTOMERS SCALE_FACTOR: each user's interval from one request's start to
# the next's that offers the nominal throughput (clause 6.7), in seconds with 3 decimals. The
# arithmetic (the deck's Trade-Orders, their roll-backs) is the spec's, in
# common/workload/spec.h: bb-spec prints it.
auto_pacing() {
  "${BB_BUILD_DIR}/spec/bb-spec" --pacing "$1" "$2" "$3"
}
