#!/usr/bin/env bash
# controller/run's progress line (controller/lib/progress.sh): the phase is the customer
# emulator's as its mix log's markers show it (CE_PHASE, lib/interval.sh: starting, ramp-up
# after its Trade-Cleanup row, measuring from START), the total becomes START + the
# measurement interval once START is seen (START comes before the nominal ramp-up ends),
# TRTPS and the Trade-Result p90 are those of a hand-written market emulator log in its format,
# and a non-terminal gets a line per 30 s.
# It runs once a second on the database's host, so it starts no process: here every call runs
# with a PATH where no command can be found.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=tests/controller/lib/check.sh
source "${root}/tests/controller/lib/check.sh"
# shellcheck source=controller/lib/common.sh
source "${root}/controller/lib/common.sh"
# shellcheck source=controller/lib/hosts.sh
source "${root}/controller/lib/hosts.sh"
# shellcheck source=controller/lib/progress.sh
source "${root}/controller/lib/progress.sh"
work="$(mktemp -d /tmp/bbprogresstest.XXXXXX)"
trap 'rm -rf -- "${work}"' EXIT

PROGRESS_TTY=0
RAMP_UP=240
DURATION=300
C_HOST=(local local)
C_LOG=("${work}/ce.log" "${work}/mee.log")
: >"${C_LOG[1]}"
CE_PHASE=starting
mee() { printf '2026-01-01 10:00:00.000000 mee info: %s\n' "$1" >>"${C_LOG[1]}"; }
out="${work}/out"
at() { PATH=/nonexistent progress "$1" 1 >"${out}"; }
says() { grep -qF -- "$1" "${out}"; }
silent() { [[ ! -s "${out}" ]]; }

at 0
check "before anything: starting, total = ramp-up + interval" says '[0:00 / 9:00] starting; TRTPS -'
at 1
check "within 30 s of the last line: no line" silent
at 30
check "Trade-Cleanup's time added to the total" says '[0:30 / 9:30] starting;'
CE_PHASE=ramp-up
at 31
at 60
check "ramp-up, the total from its start" says '[1:00 / 9:31] ramp-up;'
mee 'pending 12 (timers 10, triggers 2), due-unsent 0, in flight 0, TR/s 0.2, TR p90 12.5 ms, MF/s 0.0, received 14, refused 0, errors 0, lost in flight 0, busy 0, re-sent 0, links up 4/4'
at 90
check "the market emulator's TRTPS and p90" says '[1:30 / 9:31] ramp-up; TRTPS 0.2, TR p90 12.5 ms'
CE_PHASE=measuring
at 247
check "START seen 24 s before the nominal ramp-up ends: measuring, total = START + interval" \
  says '[4:07 / 9:07] measuring;'
mee 'pending 40 (timers 30, triggers 10), due-unsent 0, in flight 1, TR/s 1.9, TR p90 -, MF/s 0.2, received 99, refused 0, errors 0, lost in flight 0, busy 0, re-sent 0, links up 4/4'
mee 'pending 41 (timers 30, triggers 11), due-unsent 0, in flight 1, TR/s 2.1, TR p90 9.0 ms, MF/s 0.2, received 99, refused 0, errors 0, lost in flight 0, busy 0, re-sent 0, links up 4/4'
at 300
check "the latest market emulator line" says 'measuring; TRTPS 2.1, TR p90 9.0 ms'
CE_PHASE=over
at 547
check "over, and the clock reaches the total" says '[9:07 / 9:07] over;'
C_HOST=(local mee1)
at 600
check "a market emulator on another host: its last figures stay" says '[10:00 / 9:07] over; TRTPS 2.1'
PROGRESS_TTY=1
at 601
check "on a terminal: redrawn in place, every call" says $'\r\033[K    [10:01 / 9:07]'
check "... on one line" test "$(wc -l <"${out}")" -eq 0

check_summary
