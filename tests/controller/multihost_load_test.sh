#!/usr/bin/env bash
# A load from several hosts at once into one database, on one machine: three "hosts" as
# Linux network namespaces on a bridge (tests/controller/lib/netns.sh), PostgreSQL on host db,
# loaders on l1 and l2 started over ssh by `./brokerbench build-db --config FILE`. Checks:
#   1. the load completes; each host loaded its own load unit (its log, under its name,
#      names its units; the database's load record has each unit claimed from that host's
#      address); `bb-loader --check` passes;
#   2. every one of the 33 tables holds the same rows as after a load by one process on one
#      host (md5 over every row's text, rows in a total order, and the row count, per table);
#   3. a configuration naming an unreachable loader host fails within seconds, names the
#      host, and leaves the database untouched; overlapping load_units are refused naming
#      both loaders;
#   4. a loader that dies fails the load naming its host, with its log's last lines, stops
#      the other loader, and brings both logs home.
# Skips (prints SKIPPED and why) where namespaces cannot be made: it needs root, as in CI.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=tests/controller/lib/check.sh
source "${root}/tests/controller/lib/check.sh"
# shellcheck source=controller/lib/common.sh
source "${root}/controller/lib/common.sh"  # BB_BUILD_DIR
# shellcheck source=tests/controller/lib/netns.sh
source "${root}/tests/controller/lib/netns.sh"
# shellcheck source=tests/controller/lib/dbhost.sh
source "${root}/tests/controller/lib/dbhost.sh"

if ! reason=$(netns_check); then
  printf 'SKIPPED: %s\n' "${reason}"
  exit 0
fi

# Two load units (one per loader host), two trade days: every table has rows, in seconds.
readonly CUSTOMERS=2000 TRADE_DAYS=2

dbhost_dirs "${root}" bbmhload

netns_setup db l1 l2
netns_start_sshd l1 l2
printf 'hosts: db=%s l1=%s l2=%s\n' "$(netns_addr db)" "$(netns_addr l1)" "$(netns_addr l2)"

# PostgreSQL on host db, listening on db's address only, trusting the test's subnet.
dbhost_start
for db in multi single unreachable died; do
  psql "$("${root}/controller/pgcluster" conninfo "${pgdir}")" -Xqc "create database ${db}" >/dev/null
done
conninfo() { printf 'host=%s port=5432 dbname=%s user=brokerbench connect_timeout=5\n' "$(netns_addr db)" "$1"; }
sql() { psql "$(conninfo "$1")" -XAtq -v ON_ERROR_STOP=1 -c "$2"; }

# write_config DATABASE HOST1 HOST2 [UNITS1 UNITS2]
write_config() {
  local db="$1" h1="$2" h2="$3" u1="${4:-}" u2="${5:-}"
  cat <<CONFIG
# brokerbench configuration: a load from the namespace test's two loader hosts
[test]
customers = ${CUSTOMERS}
initial_trade_days = ${TRADE_DAYS}

[database]
conninfo = $(conninfo "${db}")

[loader]
host = ${h1}
${u1:+load_units = ${u1}}

[loader]
host = ${h2}
${u2:+load_units = ${u2}}

[ssh]
options = -F ${NETNS_SSH_CONFIG}
work_dir = ${data}/work
CONFIG
}

# --- 1. a load from two hosts ---------------------------------------------------------------
write_config multi l1 l2 >"${data}/multi.conf"
out="${data}/multi.out"
rc=0
t0=${SECONDS}
"${root}/brokerbench" build-db --config "${data}/multi.conf" --log-dir "${data}/multi" >"${out}" 2>&1 || rc=$?
printf 'build-db --config across l1 and l2: %d s\n' $((SECONDS - t0))
cat "${out}"
logs="${data}/multi/loader"
check "the two-host load exits 0" test "${rc}" -eq 0
check "it ran prepare, both loaders, then finish" has_line "${out}" '^==> finish: '
for h in l1 l2; do
  check "host ${h}'s loader log came home under its name" nonempty "${logs}/${h}/loader.log"
  check "host ${h}'s loader ran in ${h}'s namespace" has_line "${logs}/${h}/remote-exec.host" " $(netns_addr "${h}")/24$"
done
check "l1's log names its units: load unit 0 with the fixed tables" \
  has_line "${logs}/l1/loader.log" '^Loading load units 0-0 of 0-1 \(the fixed tables and customers 1 to 1000\)'
check "l2's log names its units: load unit 1" \
  has_line "${logs}/l2/loader.log" '^Loading load units 1-1 of 0-1 \(customers 1001 to 2000\)'
check "the database says l1 loaded load unit 0 and the fixed tables" test \
  "$(sql multi "select string_agg(distinct host(client_addr), ',') from brokerbench_load_units where load_unit <= 0")" \
  == "$(netns_addr l1)"
check "the database says l2 loaded load unit 1" test \
  "$(sql multi "select string_agg(distinct host(client_addr), ',') from brokerbench_load_units where load_unit = 1")" \
  == "$(netns_addr l2)"
check "every work unit is recorded finished" test \
  "$(sql multi "select count(*) filter (where finished is not null) from brokerbench_load_units")" -eq 7
check "the load is marked complete" test "$(sql multi "select complete from brokerbench_load_info")" == t
rc=0
"${BB_BUILD_DIR}/loader/bb-loader" --check --db "$(conninfo multi)" >"${data}/check.out" 2>&1 || rc=$?
tail -n 1 "${data}/check.out"
check "bb-loader --check passes on the two-host load" test "${rc}" -eq 0

# --- 2. the same as a load by one process on one host ----------------------------------------
rc=0
t0=${SECONDS}
"${root}/brokerbench" build-db --db "$(conninfo single)" --customers "${CUSTOMERS}" \
  --initial-trade-days "${TRADE_DAYS}" --scale-factor 500 >"${data}/single.out" 2>&1 || rc=$?
printf 'build-db (one process, this host): %d s\n' $((SECONDS - t0))
check "the one-host load exits 0" test "${rc}" -eq 0

# Per table: the row count and the md5 of every row's text md5, sorted (a total order on the
# rows: equal multisets of rows give equal hashes).
table_hashes() {
  local tables
  tables=$(sql "$1" "select string_agg(format('select %L, count(*), md5(coalesce(string_agg(h, '''' order by h), '''')) from (select md5(t::text) as h from %I t) s', relname, relname), ' union all ' order by relname) from pg_class where relnamespace = 'public'::regnamespace and relkind = 'r' and relname not like 'brokerbench%'")
  sql "$1" "${tables}" | sort
}
table_hashes multi >"${data}/multi.md5"
table_hashes single >"${data}/single.md5"
check "33 tables hashed in each database" test "$(wc -l <"${data}/multi.md5")" -eq 33 -a "$(wc -l <"${data}/single.md5")" -eq 33
while IFS='|' read -r table rows hash; do
  other=$(grep "^${table}|" "${data}/single.md5" || true)
  check "table ${table} (${rows} rows) is identical in both loads" test "${table}|${rows}|${hash}" == "${other}"
done <"${data}/multi.md5"
check "the trade tables are not empty" has_line "${data}/multi.md5" '^trade\|[1-9][0-9]*\|'

# --- 3. an unreachable loader host; overlapping load units ----------------------------------
write_config unreachable l1 "$(netns_unused_addr)" >"${data}/unreachable.conf"
out="${data}/unreachable.out"
rc=0
t0=${SECONDS}
"${root}/brokerbench" build-db --config "${data}/unreachable.conf" --log-dir "${data}/unreachable" >"${out}" 2>&1 || rc=$?
elapsed=$((SECONDS - t0))
cat "${out}"
check "a configuration with an unreachable loader host fails (exit 1)" test "${rc}" -eq 1
check "... within seconds (${elapsed} s)" test "${elapsed}" -le 20
check "... naming the host" has_line "${out}" "host $(netns_unused_addr): cannot reach it over ssh"
check "... and leaves the database untouched" test \
  "$(sql unreachable "select count(*) from pg_class where relnamespace = 'public'::regnamespace")" -eq 0
check "... and starts no loader" lacks_line "${data}/unreachable/build-db.log" 'starting loader'

write_config unreachable l1 l2 0-1 1-1 >"${data}/overlap.conf"
rc=0
"${root}/brokerbench" build-db --config "${data}/overlap.conf" --log-dir "${data}/overlap" >"${data}/overlap.out" 2>&1 || rc=$?
cat "${data}/overlap.out"
check "overlapping load_units are a usage error (exit 2)" test "${rc}" -eq 2
check "... naming both loaders and their hosts" has_line "${data}/overlap.out" \
  "loader 2's load units 1-1 overlap loader 1's 0-1 \(loaders in order: 1 = l1, 2 = l2\)"

# --- 4. a loader that dies -------------------------------------------------------------------
write_config died l1 l2 >"${data}/died.conf"
out="${data}/died.out"
"${root}/brokerbench" build-db --config "${data}/died.conf" --log-dir "${data}/died" >"${out}" 2>&1 &
build_pid=$!
# Prints the pids of the bb-loader processes in host NAME's namespace whose command line holds
# TEXT (not the remote-exec that starts one, whose arguments hold the same text).
pids_in() {
  local p
  for p in $(ip netns pids "${NETNS_NS[$1]}"); do
    [[ "$(cat 2>/dev/null "/proc/${p}/comm")" == bb-loader ]] || continue
    [[ "$(tr 2>/dev/null '\0' ' ' <"/proc/${p}/cmdline")" != *"$2"* ]] || printf '%s\n' "${p}"
  done
}
# l2's bb-loader, once it runs (at most 60 s): the test started it, so the test may end it.
victim=""
for ((i = 0; i < 600; i++)); do
  victim=$(pids_in l2 "--phase data" | head -n 1)
  [[ -z "${victim}" ]] || break
  sleep 0.1
done
[[ -z "${victim}" ]] || kill -TERM "${victim}"
rc=0
wait "${build_pid}" || rc=$?
cat "${out}"
check "l2's loader was seen running and killed" test -n "${victim}"
check "a loader that dies fails the load (exit 1)" test "${rc}" -eq 1
check "... naming its host and units" has_line "${out}" 'the loader on host l2 \(load units 1-1\) failed with exit 143'
check "... showing its log's last lines" has_line "${out}" '^    Loading load units 1-1 of 0-1'
check "... stopping the other loader" has_line "${out}" 'stopped loader 1 on l1 \(load units 0-0\)'
check "... keeping both logs" test -s "${data}/died/loader/l1/loader.log" -a -s "${data}/died/loader/l2/loader.log"
check "no loader is left running on any host" test -z "$(pids_in l1 "")$(pids_in l2 "")"
check "the database is marked incomplete" test "$(sql died "select complete from brokerbench_load_info")" == f

check_summary
