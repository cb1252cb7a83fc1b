#!/usr/bin/env bash
# A database the kit does not own (issue 30): on PostgreSQL 18 (controller/pg-builds), a
# throwaway cluster, a role without superuser that owns one database and has nothing else
# granted, and ./brokerbench given that database with --db, its password in the string:
#   1. errors, each within seconds, naming the connection string with its password as *** and
#      saying what to do: a wrong password (run), a database that does not exist (build-db), a
#      role that may not create tables in the schema (build-db: nothing created);
#   2. a half-loaded schema (tables made by hand, then a load killed mid-way): run, check-db and
#      build-db without --drop each say "partial load" and give the build-db --drop command,
#      and run loads nothing;
#   3. build-db --drop replaces it as that role; check-db passes;
#   4. a short run completes and its report has the Database section with the run's figures;
#      nothing asked for a superuser's privilege;
# and no output, log or results file holds the password. Prints SKIPPED when the PostgreSQL 18
# build cannot be fetched (it needs the npm registry once).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=tests/controller/lib/check.sh
source "${root}/tests/controller/lib/check.sh"
pgcluster="${root}/controller/pgcluster"
data="$(mktemp -d /tmp/bbnsutest.XXXXXX)"
chmod 0711 "${data}"
export BB_DATA_DIR="${data}"
dir="${data}/pg"
cleanup() {
  [[ -z "${load_pid:-}" ]] || kill -KILL "${load_pid}" 2>/dev/null || true
  "${pgcluster}" destroy "${dir}" >/dev/null 2>&1 || true
  rm -rf -- "${data}"
}
trap cleanup EXIT
unset PGPASSWORD PGPASSFILE PGSERVICE

# PostgreSQL 18, fetched once and kept (pg-builds lets one fetch at a time; the others wait).
if ! bin=$("${root}/controller/pg-builds" fetch 18); then
  printf 'SKIPPED: no PostgreSQL 18 server build (controller/pg-builds fetch 18 failed, above)\n'
  exit 0
fi

BB_PG_BIN="${bin}" "${pgcluster}" init "${dir}" --throwaway --no-tcp >/dev/null
"${pgcluster}" start "${dir}" >/dev/null
admin=$("${pgcluster}" conninfo "${dir}")
port=$(sed -n 's/.*port=\([0-9]*\).*/\1/p' <<<"${admin}")
password="nsu$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
psql "${admin}" -Xq -v ON_ERROR_STOP=1 \
  -c "create role bench login password '${password}'" \
  -c "create database benchdb owner bench" \
  -c "create role other login password '${password}'" >/dev/null
server="host=${dir}/run port=${port}"
# In libpq's order of keywords, which the kit's redaction (bb-conninfo redact) writes: so the
# string shown is this one with its password as ***.
db="user=bench password=${password} dbname=benchdb ${server}"
shown="user=bench password=\\*\\*\\* dbname=benchdb ${server}"
as_bench() { PGPASSWORD="${password}" psql "${server} user=bench dbname=benchdb" -XAtq "$@"; }
printf 'PostgreSQL: %s; role bench: superuser %s, createdb %s\n' "$(as_bench -c 'show server_version')" \
  "$(as_bench -c "select rolsuper from pg_roles where rolname = current_user")" \
  "$(as_bench -c "select rolcreatedb from pg_roles where rolname = current_user")"

SIZING=(--customers 1000 --initial-trade-days 3)
n=0
# bb NAME ARGS...: ./brokerbench ARGS, its output in ${out} (shown), exit status in ${rc},
# seconds taken in ${took}.
bb() {
  out="${data}/$((++n))-$1.out"
  shift
  local start=${SECONDS}
  rc=0
  "${root}/brokerbench" "$@" >"${out}" 2>&1 || rc=$?
  took=$((SECONDS - start))
  printf -- '--- brokerbench %s: exit %s in %s s\n' "$1" "${rc}" "${took}"
  cat "${out}"
}
# fails_fast WHAT: the last command failed (exit 1) within 60 s (a stale build aside, the
# checks before any load take a second or two).
fails_fast() {
  check "$1: fails (exit 1)" test "${rc}" -eq 1
  check "$1: ... within 60 s" test "${took}" -le 60
}

# --- 1. errors before anything is loaded --------------------------------------------------------
bb wrong-password run --db "${db/password=${password}/password=wrongpw}" --duration 10s \
  --results-dir "${data}/results"
fails_fast "a wrong password"
check "... libpq's reason" has_line "${out}" 'password authentication failed for user "bench"'
check "... the connection string, its password as ***" has_line "${out}" "refuses connections \\('${shown}'\\)"
check "... what to do" has_line "${out}" 'correct it \(password= in the connection string, PGPASSWORD'
check "... and no password" lacks_line "${out}" "${password}"

bb missing-db build-db --db "${db/dbname=benchdb/dbname=nosuchdb}" "${SIZING[@]}"
fails_fast "a database that does not exist"
check "... libpq's reason" has_line "${out}" 'database "nosuchdb" does not exist'
check "... the connection string, its password as ***" has_line "${out}" "password=\\*\\*\\* dbname=nosuchdb host="
check "... what to do" has_line "${out}" 'CREATE DATABASE "nosuchdb" OWNER'

bb no-create build-db --db "${db/user=bench/user=other}" "${SIZING[@]}"
fails_fast "a role without CREATE on the schema"
check "... says so and gives the GRANT" \
  has_line "${out}" 'role other may not create tables in schema public of database benchdb.*GRANT USAGE, CREATE ON SCHEMA public TO other'
check "... and creates nothing" test "$(as_bench -c "select count(*) from pg_tables where schemaname = 'public'")" -eq 0
bb no-create-run run --db "${db/user=bench/user=other}" "${SIZING[@]}" --duration 10s --results-dir "${data}/results"
fails_fast "run as a role without CREATE on the schema"
check "... its failure line says why and gives the GRANT" \
  has_line "${out}" '^brokerbench: run failed: the loader failed \(exit 1\): .*role other may not create tables in schema public.*GRANT USAGE, CREATE ON SCHEMA public TO other'

# --- 2. a half-loaded schema ------------------------------------------------------------------
as_bench -c 'create table trade (t_id bigint)' -c 'create table customer (c_id bigint)' \
  -c 'create table broker (b_id bigint)'
bb hand-run run --db "${db}" "${SIZING[@]}" --duration 10s --results-dir "${data}/results"
fails_fast "run on tables made by hand"
check "... a partial load: what is there" \
  has_line "${out}" 'partial load: 3 of the 33 brokerbench tables and no load record'
check "... and the command that reloads it" \
  has_line "${out}" "reload it with: ./brokerbench build-db --db '${shown}' --customers 1000 --scale-factor 500 --initial-trade-days 3 --drop"
check "... and nothing was loaded" lacks_line "${out}" 'loading|bb-loader'
bb hand-check check-db --db "${db}"
fails_fast "check-db on tables made by hand"
check "... a partial load and the command" \
  has_line "${out}" "partial load: 3 of the 33 .*reload it with: ./brokerbench build-db --db '${shown}' --drop"
bb hand-build build-db --db "${db}" "${SIZING[@]}"
fails_fast "build-db without --drop on tables made by hand"
check "... a partial load and the same command with --drop" \
  has_line "${out}" "partial load: 3 of the 33 .*reload it with: ./brokerbench build-db --db '${shown}' --customers 1000 --initial-trade-days 3 --drop"

# One of the tables another role's (a superuser made it): --drop may not drop it, and says so
# before it drops anything.
psql "${admin/dbname=postgres/dbname=benchdb}" -Xq -c 'create table exchange (ex_id char(6))'
bb foreign-drop build-db --db "${db}" "${SIZING[@]}" --drop
fails_fast "build-db --drop over a table of another role"
check "... names the table and its owner" \
  has_line "${out}" 'cannot drop exchange \(owner brokerbench\): only a table.s owner \(or a superuser\) may'
check "... and drops nothing" test "$(as_bench -c "select count(*) from pg_tables where schemaname = 'public'")" -eq 4
psql "${admin/dbname=postgres/dbname=benchdb}" -Xq -c 'drop table exchange'

# A load killed mid-way (as the role; it replaces the hand-made tables first): its record says
# it never finished.
"${root}/brokerbench" build-db --db "${db}" "${SIZING[@]}" --drop >"${data}/killed-load.out" 2>&1 &
load_pid=$!
for ((i = 0; i < 600; i++)); do
  [[ "$(as_bench -c "select to_regclass('brokerbench_load_units') is not null" 2>/dev/null)" != t ]] ||
    [[ "$(as_bench -c 'select count(*) > 0 from brokerbench_load_units' 2>/dev/null)" != t ]] || break
  sleep 0.1
done
kill -KILL "${load_pid}" 2>/dev/null || true
wait "${load_pid}" 2>/dev/null || true
load_pid=""
bb killed-run run --db "${db}" "${SIZING[@]}" --duration 10s --results-dir "${data}/results"
fails_fast "run on a load that was killed"
check "... the load that never finished" \
  has_line "${out}" 'partial load: the load of 1000 customers, scale factor 500, 3 initial trade days, started [0-9-]+ [0-9:]+ [^,]+, never finished'
check "... and the command that reloads it" has_line "${out}" "reload it with: ./brokerbench build-db --db '${shown}' .* --drop"

# --- 3. the load as the role, over what the killed one left -------------------------------------
bb load build-db --db "${db}" "${SIZING[@]}" --drop
check "build-db --drop loads it as a role without superuser" test "${rc}" -eq 0
check "... every table the role's" \
  test "$(as_bench -c "select count(*) from pg_tables where schemaname = 'public' and tableowner = 'bench'")" -eq 35
bb check check-db --db "${db}"
check "check-db passes" test "${rc}" -eq 0
check "... and checked something" has_line "${out}" '^PASS'

# --- 4. a short run -----------------------------------------------------------------------------
bb run run --db "${db}" "${SIZING[@]}" --duration 20s --ramp-up 3s --users 3 --results-dir "${data}/results"
run_dir=$(readlink -f "${data}/results/latest" || true)
check "a short run completes" test "${rc}" -eq 0
check "... on the database loaded above (no reload)" lacks_line "${out}" 'bb-loader|[Ll]oading'
check "... with a report" nonempty "${run_dir}/report.txt"
sed -n '/^Database$/,/^System/p' "${run_dir}/report.txt" >"${data}/database.txt" 2>/dev/null || true
cat "${data}/database.txt"
check "the report has a Database section" nonempty "${data}/database.txt"
check "... with the run's pg_stat_database changes" has_line "${data}/database.txt" 'xact_commit:? +[1-9][0-9]*'
check "nothing asked for a superuser's privilege" \
  lacks_line <(cat "${out}" "${run_dir}/run.log" "${run_dir}"/bh/*/bh.log) 'must be superuser|permission denied|must be owner'
check "the role is still no superuser" test "$(as_bench -c 'select rolsuper from pg_roles where rolname = current_user')" = f

# --- the password, nowhere ----------------------------------------------------------------------
leaks=$(grep -rlF -- "${password}" "${data}"/*.out "${data}/results" "${data}/loads" 2>/dev/null || true)
[[ -z "${leaks}" ]] || printf 'the password is in:\n%s\n' "${leaks}"
check "no output, log or results file holds the password" test -z "${leaks}"

check_summary
