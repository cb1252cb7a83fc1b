#!/usr/bin/env bash
# controller/lib/interval.sh: the first customer emulator's phase follows its mix log's rows
# and markers (postprocess/MIXLOG.md) and its state, never its log's wording: a log that says
# "Trade-Cleanup done" and "START:" moves nothing; a TC row ends the start, START begins the
# measurement interval, the emulator's exit ends it. No run: a hand-written mix log.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=tests/controller/lib/check.sh
source "${root}/tests/controller/lib/check.sh"
# shellcheck source=controller/lib/common.sh
source "${root}/controller/lib/common.sh"
# shellcheck source=controller/lib/hosts.sh
source "${root}/controller/lib/hosts.sh"
# shellcheck source=controller/lib/interval.sh
source "${root}/controller/lib/interval.sh"
work="$(mktemp -d /tmp/bbintervaltest.XXXXXX)"
trap 'rm -rf -- "${work}"' EXIT

C_HOST=(local)
C_DIR=("${work}")
C_STATE=(running)
mix="${work}/mix-ce-123.csv"
printf '# brokerbench mix log v2\nstart_us,code,spec_status,outcome,response_us,retries,user,wait_us,inputs\n' >"${mix}"
phase() { ce_track 0; [[ "${CE_PHASE}" == "$1" ]] || { printf '    CE_PHASE %s\n' "${CE_PHASE}"; return 1; }; }

check "an empty mix log: starting" phase starting
printf '2026-01-01 10:00:00.000000 ce info: Trade-Cleanup done in 3 ms\n' >"${work}/ce.log"
check "the log's words move nothing" phase starting
printf '1763726400123456,TO,0,ok,1834,0,17,0,TLB q200\n' >"${work}/mix-ce-999.csv"
check "a row of another type in another mix log: starting" phase starting
rm "${work}/mix-ce-999.csv"
printf '1763726400000001,TC,0,ok,3000,0,-1,0,\n' >>"${mix}"
check "a Trade-Cleanup row: ramp-up" phase ramp-up
printf '1763726400000002,TS,0,ok,800,0,3,0,\n1763726400000003,MW,0,ok,951,0,5,0,watch\n' >>"${mix}"
check "rows: still ramp-up" phase ramp-up
printf '1763726401000000,START,,,,,,,\n' >>"${mix}"
check "START: measuring" phase measuring
C_STATE=(exited:0)
check "the emulator exited: over" phase over

# A Trade-Cleanup that failed still ends the start (the run goes on, not valid).
CE_PHASE=starting
C_STATE=(running)
printf '%s\n' '# brokerbench mix log v2' '1763726400000001,TC,0,net_error,0,0,-1,0,' >"${mix}"
check "a Trade-Cleanup row with an error: ramp-up" phase ramp-up

check_summary
