#!/usr/bin/env bash
# controller/lib/plan.sh: the emulators' seeds, the customers' partitions and the auto pacing,
# each against figures worked out by hand (no run, no database). Needs bb-spec built
# (BB_BUILD_DIR, default build/).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=tests/controller/lib/check.sh
source "${root}/tests/controller/lib/check.sh"
# shellcheck source=controller/lib/plan.sh
source "${root}/controller/lib/plan.sh"
BB_BUILD_DIR="${BB_BUILD_DIR:-${root}/build}"

is() { [[ "$1" == "$2" ]] || { printf '    got %q, want %q\n' "$1" "$2"; return 1; }; }

check "the market emulator has the run's seed" is "$(emulator_seed 42 mee)" 42
check "the first customer emulator too" is "$(emulator_seed 42 0)" 42
check "the third: seed x 1000 + 2" is "$(emulator_seed 42 2)" 42002

check "one emulator: no partitions" is "$(partitions 1 100000)" ""
check "two emulators, 9000 customers: under 5000 each, none" is "$(partitions 2 9000)" ""
check "two emulators, 10000 customers: 5000 each" is "$(partitions 2 10000)" $'1 5000\n5001 5000'
check "three emulators, 17000: whole load units, the last takes the rest" \
  is "$(partitions 3 17000)" $'1 5000\n5001 5000\n10001 7000'

# 1000 customers at scale factor 500: 2 Trade-Results a second, 8.9 customer transactions
# each (890 cards, 101 Trade-Orders, 1 in 101 rolled back): 10 users start one every 0.562 s.
check "auto pacing, 10 users, 1000 customers" is "$(auto_pacing 10 1000 500)" 0.562
check "auto pacing, 250 users, 5000 customers" is "$(auto_pacing 250 5000 500)" 2.809
refuses() { local out; ! out=$(auto_pacing "$@" 2>&1) && [[ "${out}" == *"CUSTOMERS '$2'"* ]]; }
check "auto pacing refuses a bad number, naming it" refuses 10 1e3 500

check_summary
