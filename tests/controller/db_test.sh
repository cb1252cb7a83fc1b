#!/usr/bin/env bash
# The embedded cluster through the entry script, as a user drives it: `db start`, `db psql`,
# `db status`, `db stop` (no server process left behind), `db destroy`. Uses its own data
# directory, so it never touches a user's cluster.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=tests/controller/lib/check.sh
source "${root}/tests/controller/lib/check.sh"
data="$(mktemp -d /tmp/bbdbtest.XXXXXX)"
chmod 0711 "${data}"
export BB_DATA_DIR="${data}"

cleanup() {
  "${root}/brokerbench" db destroy --yes >/dev/null 2>&1 || true
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
check "status while running (0)" status_is 0
check "a second start is harmless" "${root}/brokerbench" db start
check "db stop" "${root}/brokerbench" db stop
check "no server process left after stop" test -z "$(live_server_processes)"
check "status after stop (3)" status_is 3
check "destroy refuses without --yes" destroy_refused_without_yes
check "db destroy --yes" "${root}/brokerbench" db destroy --yes
check "the cluster directory is gone" test ! -e "${data}/pg"

check_summary
