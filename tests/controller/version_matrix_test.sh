#!/usr/bin/env bash
# The kit on another major version of PostgreSQL than Debian's 15 (issue 30): run through
# tests/pg_version.sh MAJOR, which sets BB_PG_BIN, so that the embedded cluster of a private
# data directory is of that version. As a user would, through ./brokerbench:
#   1. build-db loads a small database (the schema, the load, its keys, indexes and analyze),
#      on a server that says it is PostgreSQL MAJOR;
#   2. with --check-db: check-db passes (about a minute: loader_db_test audits a load on 15);
#   3. the server-side frames give what the client-side ones give, on the same database with the
#      same inputs (bb-txn --show): the read-only transactions, and Trade-Update, whose toggles
#      two runs of the same inputs undo. (tests/frames_cross_db_test.cpp checks every type, row
#      by row, on 15; here, a few seconds' worth of it on this version's planner: 16 and later
#      ordered Trade-Lookup's and Trade-Update's arrays otherwise, see the comment at the top of
#      brokerage_house/frames/sql/trade_lookup.sql);
#   4. the db snapshots (controller/db-snapshot) before and after step 5: every file there, the
#      views of this version's statistics and no other, and no query failed (snapshot.err);
#   5. every transaction (bb-txn --all: the ten of the mix, the Trade-Results completing the
#      orders, Trade-Cleanup), each with the server-side frames (PL/pgSQL, installed first)
#      and with the client-side ones, ends as intended: 20 of each, so that the frames' other
#      branches run too (Trade-Lookup's four frames, Data-Maintenance's tables), whose
#      statements PostgreSQL checks only when they first run;
#   6. with --run: a 1-minute `brokerbench run` on that database completes, and its report's
#      Database section holds the pg_stat_database figures of the run.
# Usage: version_matrix_test.sh MAJOR [--check-db] [--run]   (BB_PG_BIN set by tests/pg_version.sh)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=tests/controller/lib/check.sh
source "${root}/tests/controller/lib/check.sh"
# shellcheck source=tests/controller/lib/data_dir.sh
source "${root}/tests/controller/lib/data_dir.sh"

usage_exit() {
  printf 'Usage: tests/pg_version.sh MAJOR %s MAJOR [--check-db] [--run]\n' "$0" >&2
  exit 2
}
major="${1:-}"
[[ "${major}" =~ ^[0-9]+$ && -n "${BB_PG_BIN:-}" ]] || usage_exit
shift
with_check=0
with_run=0
for option in "$@"; do
  case "${option}" in
    --check-db) with_check=1 ;;
    --run) with_run=1 ;;
    *) usage_exit ;;
  esac
done

own_data_dir "bbpg${major}test"

# The run's default sizing: the smallest database in which every account has the 50 trades
# Trade-Status reads (with fewer trade days some answer -911, which bb-txn counts as not
# intended). About a minute's load on two busy cores.
readonly SIZING=(--customers 1000 --initial-trade-days 20)

# txn_ran OUTPUT CODE: bb-txn's summary table has a row for CODE with a count above 0.
txn_ran() { grep -qE "^$2 +[1-9][0-9]* " "$1"; }

# shown FILE MODE CODE...: bb-txn --show of 10 of each CODE (always the same inputs) with the
# frames of MODE, into FILE: every input and output, less each reply's server-side time and the
# summary table; FILE.log keeps the whole output.
shown() {
  local file="$1" mode="$2"
  shift 2
  "${root}/brokerbench" txn --show --count 10 --seed 11 --frames "${mode}" "$@" >"${file}.log" 2>&1 ||
    { tail -n 20 "${file}.log"; return 1; }
  sed -e '/^txn  /,$d' -e '/server_micros/d' "${file}.log" >"${file}"
}
# same A B: the files are the same (the first lines that differ shown when not).
same() { diff "$1" "$2" >"$1.diff" || { head -n 40 "$1.diff"; return 1; }; }
lacks_same() { ! cmp -s "$1" "$2"; }

# --- 1, 2. load and audit --------------------------------------------------------------------
# Without --run the embedded cluster is made a throwaway one before ./brokerbench finds it
# (pgcluster init --throwaway: small memory, fsync off), so that the test can run beside the
# others: two clusters sized for the machine starting at once have failed to start one (hence
# the whole-run tests' RESOURCE_LOCK, which a --run holds).
[[ ${with_run} -eq 1 ]] || "${root}/controller/pgcluster" init "${data}/pg" --throwaway >/dev/null
rc=0
"${root}/brokerbench" build-db "${SIZING[@]}" >"${data}/build-db.out" 2>&1 || rc=$?
tail -n 20 "${data}/build-db.out"
[[ ${rc} -eq 0 ]] || tail -n 20 "${data}"/pg/log/* 2>/dev/null || true
check "build-db loads a database on PostgreSQL ${major}" test "${rc}" -eq 0
conninfo=$("${root}/brokerbench" db conninfo)
version=$(psql "${conninfo}" -XAtc 'show server_version_num' 2>&1 || true)
printf 'server_version_num: %s\n' "${version}"
check "the server is PostgreSQL ${major}" test "${version:0:${#major}}" == "${major}"
if [[ ${with_check} -eq 1 ]]; then
  rc=0
  "${root}/brokerbench" check-db >"${data}/check-db.out" 2>&1 || rc=$?
  grep -E 'FAIL|passed|checks' "${data}/check-db.out" | tail -n 5
  check "check-db passes" test "${rc}" -eq 0
  check "... and checked something" has_line "${data}/check-db.out" 'PASS'
fi

# --- 3. both frame modes, the same outputs -------------------------------------------------
readonly_codes=(BV CP MW SD TL TS)
check "read-only transactions, server-side frames" shown "${data}/ro.server" server "${readonly_codes[@]}"
check "... and client-side frames" shown "${data}/ro.client" client "${readonly_codes[@]}"
check "... the same outputs" same "${data}/ro.server" "${data}/ro.client"
outputs=$(grep -cE '^(BrokerVolume|CustomerPosition|MarketWatch|SecurityDetail|TradeLookup|TradeStatus)Output' \
  "${data}/ro.client" || true)
check "... 10 of each type" test "${outputs}" -eq 60
# Trade-Update toggles names: a second run of the same inputs undoes the first.
for run in server.1 server.2 client.1 client.2; do
  check "Trade-Update, ${run%.*}-side frames, run ${run#*.}" shown "${data}/tu.${run}" "${run%.*}" TU
done
check "... the same outputs on the first runs" same "${data}/tu.server.1" "${data}/tu.client.1"
check "... and on the second" same "${data}/tu.server.2" "${data}/tu.client.2"
check "... whose second runs saw what the first changed" lacks_same "${data}/tu.server.1" "${data}/tu.server.2"

# --- 4, 5. the snapshots around every transaction in both frame modes ------------------------
snap="${data}/snapshots"
"${root}/controller/db-snapshot" "${conninfo}" "${snap}" before
for mode in server client; do
  out="${data}/txn-${mode}.out"
  rc=0
  "${root}/brokerbench" txn --all --count 20 --seed 7 --frames "${mode}" >"${out}" 2>&1 || rc=$?
  sed -n '/^txn /,$p' "${out}"
  [[ ${rc} -eq 0 ]] || tail -n 20 "${out}"
  check "bb-txn --all --frames ${mode}: every transaction as intended" test "${rc}" -eq 0
  for code in BV CP MW SD TL TO TS TU MF DM TR TC; do
    check "... ${code} ran (${mode})" txn_ran "${out}" "${code}"
  done
done
"${root}/controller/db-snapshot" "${conninfo}" "${snap}" after
views=(pg_stat_database pg_stat_bgwriter pg_statio_user_tables pg_statio_user_indexes
  pg_stat_user_tables pg_stat_wal)
absent=()
# pg_stat_io from 16, pg_stat_checkpointer from 17 (db-snapshot takes those the server has).
if ((major >= 16)); then views+=(pg_stat_io); else absent+=(pg_stat_io); fi
if ((major >= 17)); then views+=(pg_stat_checkpointer); else absent+=(pg_stat_checkpointer); fi
for when in before after; do
  for view in "${views[@]}"; do
    check "db/${when}/${view}.csv is there with rows" test "$(wc -l <"${snap}/db/${when}/${view}.csv" 2>/dev/null || echo 0)" -ge 2
  done
  for view in "${absent[@]}"; do
    check "db/${when} has no ${view} (PostgreSQL ${major} has none)" test ! -e "${snap}/db/${when}/${view}.csv"
  done
done
check "db/settings.csv is there" nonempty "${snap}/db/settings.csv"
check "db/before/trades.csv has the highest trade id" has_line "${snap}/db/before/trades.csv" '^[1-9][0-9]*$'
check "db/after/completed-trades.csv has the trades bb-txn completed" \
  test "$(wc -l <"${snap}/db/after/completed-trades.csv" 2>/dev/null || echo 0)" -ge 2
check "db/after/open-trades.csv is there" nonempty "${snap}/db/after/open-trades.csv"
[[ ! -s "${snap}/db/snapshot.err" ]] || cat "${snap}/db/snapshot.err"
check "no snapshot query failed (db/snapshot.err empty)" test ! -s "${snap}/db/snapshot.err"

# --- 6. a 1-minute run -----------------------------------------------------------------------
if [[ ${with_run} -eq 1 ]]; then
  out="${data}/run.out"
  rc=0
  "${root}/brokerbench" run "${SIZING[@]}" --duration 1m --ramp-up 5s --users 5 \
    --results-dir "${data}/results" >"${out}" 2>&1 || rc=$?
  cat "${out}"
  dir="${data}/results/0001"
  check "a 1-minute run on PostgreSQL ${major} completes" test "${rc}" -eq 0
  check "... on the database loaded above" has_line "${out}" 'holds 1000 customers, 20 trade days: reusing it'
  check "run.conf names the server's version" has_line "${dir}/run.conf" "^server_version=${major}\\."
  # The Database section: from its title to the next section's.
  sed -n '/^Database$/,/^System/p' "${dir}/report.txt" >"${data}/database.txt" 2>/dev/null || true
  cat "${data}/database.txt"
  check "the report has a Database section" nonempty "${data}/database.txt"
  check "... with the run's pg_stat_database changes" has_line "${data}/database.txt" 'pg_stat_database for '
  check "... commits counted" has_line "${data}/database.txt" 'xact_commit: +[1-9][0-9]*'
  check "... blocks hit counted" has_line "${data}/database.txt" 'blks_hit: +[1-9][0-9]*'
  check "... a buffer hit ratio" has_line "${data}/database.txt" 'buffer hit ratio: +[0-9.]+ %'
  check "... and no snapshot query failed" test ! -s "${dir}/db/snapshot.err"
fi

check_summary
