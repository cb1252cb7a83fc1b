#!/usr/bin/env bash
# End to end: `./brokerbench run` as a user runs it, on an embedded cluster of its own (a
# private data directory), then the results directory, the report and the failure paths:
#   1. a short run completes: headline printed, every file of the results directory there,
#      the report's per-type counts equal the mix logs' rows in the measurement interval; the
#      console shows the report's own transactions table and no mix verdict of the customer
#      emulator's, a progress line with the phase and TRTPS; pending orders are not failures;
#      readme.txt lists the server's settings, not psql's;
#   2. `brokerbench report` on a copy whose customer emulator log was cut mid-line still
#      reports, and names the file and the line;
#   3. a component that dies mid-run stops the run with its name and log, and the results
#      directory keeps what was gathered, in a new numbered directory;
#   4. a database that refuses connections fails the run the same way.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=tests/controller/lib/check.sh
source "${root}/tests/controller/lib/check.sh"
# shellcheck source=tests/controller/lib/results.sh
source "${root}/tests/controller/lib/results.sh"
data="$(mktemp -d /tmp/bbruntest.XXXXXX)"
chmod 0711 "${data}"
export BB_DATA_DIR="${data}"
results="${data}/results"

cleanup() {
  "${root}/brokerbench" db destroy --yes >/dev/null 2>&1 || true
  rm -rf -- "${data}"
}
trap cleanup EXIT

# The lines of the transactions table bb-report --table put in FILE (the console's indent off).
console_table() {
  sed -n '/Transactions in the measurement interval (\*/,/^ *$/p' "$1" | sed '1d;/^ *$/d;s/^    //'
}
# Whether every line of the console's table is a line of report.txt.
table_is_the_reports() {
  local line n=0
  while IFS= read -r line; do
    grep -qxF -- "${line}" "$2" || return 1
    n=$((n + 1))
  done < <(console_table "$1")
  ((n >= 13))  # header, rule, ten mix types, rule...
}




# --- 1. a short run -----------------------------------------------------------------------------
out="${data}/run1.out"
rc=0
"${root}/brokerbench" run --duration 70s --ramp-up 5s --users 5 --comment "e2e test" >"${out}" 2>&1 || rc=$?
cat "${out}"
dir="${results}/0001"
check "the run exits 0" test "${rc}" -eq 0
check "it prints the TRTPS" has_line "${out}" '^ *TRTPS: [0-9]'
check "it prints the verdict" has_line "${out}" '^ *Verdict: (VALID|INVALID)'
check "it prints the report's path" has_line "${out}" "^ *Report: ${dir}/report.txt$"
check "it prints the report's transactions table" table_is_the_reports "${out}" "${dir}/report.txt"
check "... and no mix verdict of the customer emulator's own" lacks_line "${out}" 'within the spec|spec range'
check "a progress line with the phase, TRTPS and the Trade-Result p90" \
  has_line "${out}" '^ +\[[0-9]+:[0-9]{2} / [0-9]+:[0-9]{2}\] measuring; TRTPS [0-9.]+, TR p90 (~[0-9.]+ m?s|> [0-9]+ s|-)'
check "the report tells pending orders from failed trades" \
  has_line "${dir}/report.txt" '^  Pending at the end: (none|[0-9]+ \()'
check "... and no pending order is a failure" lacks_line "${dir}/report.txt" '^  (limit trigger armed|in its completion delay) '
check "readme.txt lists the server's settings, not psql's session's" \
  lacks_line "${dir}/readme.txt" '^  application_name = '
check "... and has them" has_line "${dir}/readme.txt" '^  listen_addresses = ' 
check "run.conf says complete" has_line "${dir}/run.conf" '^status=complete$'
check "run.conf keeps the comment" has_line "${dir}/run.conf" '^comment=e2e test$'
check "readme.txt names the command" has_line "${dir}/readme.txt" 'brokerbench run --duration 70s'
check "the run seeds from the time of day (clause 5.8.2)" has_line "${dir}/run.conf" '^seed_source=time of day$'
check "readme.txt gives the seeds" has_line "${dir}/readme.txt" '^seeds: +[0-9]+ \(from the time of day\); market emulator [0-9]+, customer emulators [0-9]+$'
check "the customer emulator's totals, from its end-of-run record" \
  has_line "${out}" '^    stopped \(duration\): sent [0-9]+, rows [0-9]+, replies [0-9]+, errors [0-9]+'
for f in bh/*/bh.log mee/*/mee.log mee/*/mix-mee.csv mee/*/pending-trades.csv mee/*/mix-mee.end \
  ce/*/ce.log ce/*/mix-ce-*.csv ce/*/mix-ce-*.end sys/*/sysstat.csv \
  sys/*/vmstat.txt db/settings.csv db/before/pg_stat_database.csv db/after/pg_stat_database.csv \
  db/before/pg_stat_bgwriter.csv db/after/pg_statio_user_tables.csv db/privileges.csv report.txt report.html results.json; do
  # shellcheck disable=SC2086 # the glob names one file
  check "results directory has ${f}" nonempty ${dir}/${f}
done
check "the system monitor sampled for the whole run" \
  test "$(($(wc -l <"$(echo "${dir}"/sys/*/sysstat.csv)") - 1))" -ge 60
check "report.txt has the mix and outcome columns" \
  has_line "${dir}/report.txt" 'Mix %.*Count.*Rollbacks.*Warnings.*Invalid.*Errors.*Retries'
check "report.txt has the response-time columns in ms" \
  has_line "${dir}/report.txt" 'Response time \(ms\).*Count.*Min.*Avg.*p50.*p90.*p95.*p99.*Max.*Limit'
check "report.txt names the percentile method" has_line "${dir}/report.txt" 'nearest.rank'
check "report.txt gives the block writes with the view they came from" \
  has_line "${dir}/report.txt" '^  block writes: +[0-9]+ blocks \(pg_stat_(bgwriter|io)'
check "... and names the server's version" has_line "${dir}/report.txt" '^  PostgreSQL: +1[4-8]\.'
raw=$(raw_counts "${dir}")
reported=$(report_counts "${dir}")
printf 'mix logs:\n%s\nreport:\n%s\n' "${raw}" "${reported}"
check "the report's counts equal the mix logs' rows" test "${raw}" == "${reported}"
check "the report counts Trade-Results" has_line <(printf '%s\n' "${reported}") '^TR [1-9]'
for p in trtps throughput rt-distribution cpu; do
  check "plot ${p}.png is a non-empty PNG" is_png "${dir}/plots/${p}.png"
done
check "results/latest points at the run" test "$(readlink "${results}/latest")" == 0001
check "the database's count of completed trades agrees with the mix logs'" \
  has_line "${dir}/report.txt" 'metric in the database +6\.6\.8 +pass +[1-9][0-9]* trades completed in the MI'
check "the report shows the trades left open" has_line "${dir}/report.txt" 'Left open at the end: +[0-9]+ trades submitted'

# --- 1b. completed trades' history rows deleted before the check: INVALID --------------------------
lost="${data}/lost"
cp -r "${dir}" "${lost}"
conninfo=$("${root}/brokerbench" db conninfo)
max_before=$(sed -n 2p "${dir}/db/before/trades.csv")
deleted=$(psql "${conninfo}" -XAtq -c "with d as (delete from trade_history where th_st_id = 'CMPT'
  and th_t_id > ${max_before} and th_t_id % 10 = 0 returning 1) select count(*) from d")
printf 'deleted %s CMPT history rows\n' "${deleted}"
"${root}/controller/db-snapshot" "${conninfo}" "${lost}" after
"${root}/brokerbench" report "${lost}" >"${data}/report-lost.out" 2>&1 || true
check "the test deleted completed trades' history rows" test "${deleted:-0}" -gt 0
check "a database missing completed trades makes the run INVALID" has_line "${lost}/report.txt" '^ *Verdict: INVALID'
check "... with that reason" has_line "${lost}/report.txt" \
  '\[metric in the database, clause 6\.6\.8\] the database holds [0-9]+ trades completed in the MI'

# --- 2. a customer emulator log cut mid-line ------------------------------------------------------
cut="${data}/cut"
cp -r "${dir}" "${cut}"
rm -f "${cut}"/report.* "${cut}/results.json"
ce_log=$(echo "${cut}"/ce/*/mix-ce-*.csv)
lines=$(wc -l <"${ce_log}")
head -n $((lines / 2)) "${ce_log}" >"${cut}/part"
sed -n "$((lines / 2 + 1))p" "${ce_log}" | head -c 12 >>"${cut}/part"
mv "${cut}/part" "${ce_log}"
rc=0
"${root}/brokerbench" report "${cut}" >"${data}/report2.out" 2>&1 || rc=$?
cat "${data}/report2.out"
check "report on a cut log exits 0" test "${rc}" -eq 0
check "report on a cut log writes report.txt" nonempty "${cut}/report.txt"
check "the cut line is named with its file and line" \
  has_line "${cut}/report.txt" "mix-ce-[0-9]+\.csv:$((lines / 2 + 1))"

# --- 3. a component that dies mid-run ----------------------------------------------------------
out="${data}/run2.out"
"${root}/brokerbench" run --duration 60s --ramp-up 2s --users 2 >"${out}" 2>&1 &
run_pid=$!
dir="${results}/0002"
bh_pid=""
for ((i = 0; i < 600; i++)); do
  # The Brokerage House this run started: its pid is in its directory of the results.
  bh_pid=$(cat "${dir}"/bh/*/remote-exec.pid 2>/dev/null || true)
  [[ -z "${bh_pid}" ]] || break
  sleep 0.1
done
# Mid-run: the customer emulator's mix log has its START marker (ramp-up over, every user sent).
started=no
for ((i = 0; i < 600; i++)); do
  if grep -qs '^[0-9]*,START,' "${dir}"/ce/*/mix-ce-*.csv; then started=yes; break; fi
  sleep 0.1
done
[[ -z "${bh_pid}" ]] || kill -KILL "${bh_pid}"
rc=0
wait "${run_pid}" || rc=$?
cat "${out}"
check "the run saw the Brokerage House start" test -n "${bh_pid}"
check "... and the measured run start before the kill" test "${started}" = yes
check "a component dying fails the run (exit 1)" test "${rc}" -eq 1
check "the failure names the component and its log" \
  has_line "${out}" "the Brokerage House died during the run"
check "... and its log" has_line "${out}" "see ${dir}/bh/.*/bh.log"
check "run.conf records the failure" has_line "${dir}/run.conf" '^status=failed: the Brokerage House died'
check "the customer emulator's log was kept" nonempty "$(echo "${dir}"/ce/*/ce.log)"
check "no process of the run is left" test -z "$(pgrep -f -- "${dir}/" || true)"
# Two default runs seed differently, so their users draw other cards: user 0's first requests.
first_cards() { awk -F, '$7 == "0" { print $2 }' "$(echo "$1"/ce/*/mix-ce-*.csv)" | head -n 10 | tr '\n' ' '; }
seed1=$(sed -n 's/^seed=//p' "${results}/0001/run.conf")
seed2=$(sed -n 's/^seed=//p' "${dir}/run.conf")
printf 'seeds %s and %s; user 0 drew: %s / %s\n' "${seed1}" "${seed2}" "$(first_cards "${results}/0001")" "$(first_cards "${dir}")"
check "two default runs have different seeds" test "${seed1}" != "${seed2}"
check "... and their users draw different cards" test "$(first_cards "${results}/0001")" != "$(first_cards "${dir}")"

# --- 4. a database that refuses connections ---------------------------------------------------
out="${data}/run3.out"
rc=0
"${root}/brokerbench" run --db "host=${data}/nowhere dbname=nothing connect_timeout=3" --duration 10s \
  >"${out}" 2>&1 || rc=$?
cat "${out}"
dir="${results}/0003"
check "a database refusing connections fails the run (exit 1)" test "${rc}" -eq 1
check "the failure says so" has_line "${out}" 'the database refuses connections'
check "... in a new results directory with its log" has_line "${dir}/run.log" 'FAILED: the database refuses'

check_summary
