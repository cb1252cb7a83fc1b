#!/usr/bin/env bash
# brokerbench durability --failure crash (issue 39), on a throwaway embedded cluster of 1000
# customers and 2 trade days, two runs of 40 s before the crash and 30 s after:
#   1. the defaults (synchronous_commit on): every trade acknowledged before the crash is
#      found, 0 lost, clause 7.3.2's consistency conditions hold on the recovered database
#      (durability/check-db.txt), PASS, a downtime and PostgreSQL's redo time;
#   2. synchronous_commit=off with the WAL writer stopped (SIGSTOP, by this test) 10 s before
#      the crash: the commits of those 10 s have their WAL only in the WAL buffers (shared
#      memory), which the SIGKILL of every process throws away. wal_writer_delay alone does not
#      make that reliable: an async commit wakes the WAL writer whenever a page of WAL is full,
#      so only the last partial page (a few commits, often none) would be at risk. Nothing else
#      writes WAL in those 10 s: wal_buffers (16 MB) do not fill at this load, shared_buffers
#      hold the database (no eviction, so no XLogFlush for a dirty page), and checkpoints and
#      autovacuum are off for the run. The kit must report lost > 0, FAIL, and exactly the
#      trades this test's own recount (its own reading of the mix logs, its own SQL) finds
#      missing: a kit that only counted errors fails here.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
data="$(mktemp -d /tmp/bbdurability.XXXXXX)"
chmod 0711 "${data}"
export BB_DATA_DIR="${data}"
# shellcheck source=tests/controller/lib/check.sh
source "${root}/tests/controller/lib/check.sh"
# shellcheck source=tests/controller/lib/durability.sh
source "${root}/tests/controller/lib/durability.sh"

trap durability_cleanup EXIT


load_test_database 5700

check "bad usage: --failure missing is named" bash -c "'${root}/brokerbench' durability 2>&1 | grep -q -- '--failure is missing'"
check "bad usage: an unknown failure is named" bash -c "'${root}/brokerbench' durability --failure flood 2>&1 | grep -q \"'flood' is not a failure\""
check "bad usage: --duration is refused" bash -c "'${root}/brokerbench' durability --failure crash --duration 5m 2>&1 | grep -q -- '--duration is not an option of durability'"

printf -- '--- 1. crash with the defaults\n'
durability_run crash safe
finish
check "1: exit 0" test "${RC}" -eq 0
check "1: durability.conf has the failure's time" has_line "${DIR}/durability/durability.conf" '^failure_us=[0-9]{16}$'
check "1: trades were acknowledged before the failure" test "$(json "${DIR}" durability.acknowledged_before)" -gt 20
check "1: 0 lost" test "$(json "${DIR}" durability.lost)" -eq 0
check "1: verdict PASS" test "$(json "${DIR}" durability.verdict)" == PASS
check "1: the report says it" has_line "${DIR}/report.txt" 'Durability: PASS \(0 of [0-9]+ trades'
check "1: a downtime under 60 s" seconds_between "$(json "${DIR}" durability.downtime_s)" 0 60
check "1: PostgreSQL's redo time from its log" seconds_between "$(json "${DIR}" durability.redo_s)" 0 60
check "1: the Brokerage House reconnected by itself" has_line "$(echo "${DIR}"/bh/*/bh.log)" 'reconnected'
read -r ack missing < <(recount "${DIR}" "$("${root}/brokerbench" db conninfo)")
check "1: the test's own recount: acknowledged ${ack} = the kit's" test "${ack}" -eq "$(json "${DIR}" durability.acknowledged_before)"
check "1: the test's own recount finds none missing" test "${missing}" -eq 0
check "1: lookup.csv has each trade's holding rows" has_line "${DIR}/durability/lookup.csv" '^trade_id,found,t_st_id,t_is_cash,settlement,cash_transaction,holding_history$'
check "1: the recovered database was audited (durability/check-db.txt)" nonempty "${DIR}/durability/check-db.txt"
check "1: the audit finished, exit status 0" has_line "${DIR}/durability/check-db.txt" '^exit status: 0$'
for n in 1 2 3; do
  check "1: clause 7.3.2 condition ${n} holds after the crash" has_line "${DIR}/durability/check-db.txt" "^PASS  7[.]3[.]2 condition ${n}: "
done
check "1: results.json: consistency after recovery PASS" test "$(json "${DIR}" durability.consistency.result)" == PASS
check "1: the report says it" has_line "${DIR}/report.txt" 'Durability: PASS .*; consistency after recovery: PASS'

printf -- '--- 2. crash with synchronous_commit=off and the WAL writer stopped 10 s before\n'
durability_run crash unsafe --set synchronous_commit=off --set wal_writer_delay=10s \
  --set checkpoint_timeout=1h --set max_wal_size=4GB --set autovacuum=off
RESULTS2="${data}/results/0002"
start=$(mi_start_us "${RESULTS2}")
if [[ -n "${start}" ]]; then
  while (($(date +%s%6N) < start + 30000000)); do sleep 0.2; done
  pm=$(head -n 1 "${data}/pg/data/postmaster.pid")
  walwriter=$(pgrep -P "${pm}" -f 'walwriter')
  kill -STOP "${walwriter}"
  printf 'stopped the WAL writer (pid %s) 10 s before the crash\n' "${walwriter}"
fi
finish
check "2: exit 0" test "${RC}" -eq 0
lost=$(json "${DIR}" durability.lost)
check "2: lost > 0 (${lost})" test "${lost}" -gt 0
check "2: verdict FAIL" test "$(json "${DIR}" durability.verdict)" == FAIL
check "2: the report says it and names each lost trade" has_line "${DIR}/report.txt" 'Durability: FAIL \([1-9][0-9]* of [0-9]+ trades'
read -r ack missing < <(recount "${DIR}" "$("${root}/brokerbench" db conninfo)")
check "2: the test's own recount: acknowledged ${ack} = the kit's" test "${ack}" -eq "$(json "${DIR}" durability.acknowledged_before)"
check "2: the test's own recount finds ${missing} missing = the kit's lost ${lost}" test "${missing}" -eq "${lost}"
for n in 1 2 3; do
  check "2: clause 7.3.2 condition ${n} holds after the loss (whole transactions lost)" has_line "${DIR}/durability/check-db.txt" "^PASS  7[.]3[.]2 condition ${n}: "
done
check "2: every lost trade is named in results.json" \
  test "$(perl -MJSON::PP -e 'print scalar @{ JSON::PP->new->decode(do { local $/; <STDIN> })->{durability}{lost_trades} }' <"${DIR}/results.json")" -eq "${lost}"

check_summary
