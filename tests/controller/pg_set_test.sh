#!/usr/bin/env bash
# run --set NAME=VALUE (issue 38 item 4), for the embedded cluster: pgcluster start --set gives
# the server a setting for that start only (a command-line option: source "command line" in
# pg_settings, no file of the cluster changed); a start without it restarts the server with its
# own settings; a setting PostgreSQL refuses (a bad name, a bad value) is named with the
# server's reason in DIR/set-refused and the start fails. Then `run`: a --set of the wrong shape
# or beside --db is a usage error naming it; one PostgreSQL refuses stops the run before the
# load, named in the message and in db/set-refused.txt. Its own throwaway clusters.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=tests/controller/lib/check.sh
source "${root}/tests/controller/lib/check.sh"
pgcluster="${root}/controller/pgcluster"
data="$(mktemp -d /tmp/bbsettest.XXXXXX)"
chmod 0711 "${data}"
dir="${data}/pg"
cleanup() {
  "${pgcluster}" destroy "${dir}" >/dev/null 2>&1 || true
  BB_DATA_DIR="${data}/run" "${root}/brokerbench" db destroy --yes >/dev/null 2>&1 || true
  rm -rf -- "${data}"
}
trap cleanup EXIT
unset PGPASSWORD PGPASSFILE

"${pgcluster}" init "${dir}" --throwaway --no-tcp >/dev/null
"${pgcluster}" start "${dir}" >/dev/null
admin=$("${pgcluster}" conninfo "${dir}")
setting() { psql "${admin}" -XAtc "select setting || ':' || source from pg_settings where name = '$1'"; }
files() { md5sum "${dir}/data/postgresql.conf" "${dir}/data/postgresql.auto.conf" "${dir}/data/brokerbench.conf"; }
own_work_mem=$(setting work_mem)
files >"${data}/files.before"
pid() { head -n 1 "${dir}/data/postmaster.pid"; }
# exits_with CODE COMMAND...: COMMAND exits with CODE; its output in ${data}/out.
exits_with() {
  local want="$1" rc=0
  shift
  "$@" >"${data}/out" 2>&1 || rc=$?
  [[ ${rc} -eq ${want} ]]
}
first_pid=$(pid)

check "start --set: accepted" "${pgcluster}" start "${dir}" --set work_mem=33MB --set synchronous_commit=off
check "the server restarted for it" test "$(pid)" != "${first_pid}"
check "work_mem is the --set's, from the command line" test "$(setting work_mem)" = "33792:command line"
check "so is synchronous_commit" test "$(setting synchronous_commit)" = "off:command line"
check "no file of the cluster changed" cmp -s "${data}/files.before" <(files)
check "run-settings lists what the server runs with" \
  cmp -s "${dir}/run-settings" <(printf '%s\n' work_mem=33MB synchronous_commit=off)
set_pid=$(pid)
check "the same settings again: no restart" "${pgcluster}" start "${dir}" --set work_mem=33MB --set synchronous_commit=off
check "  (the same server)" test "$(pid)" = "${set_pid}"
check "a start without --set: accepted" "${pgcluster}" start "${dir}"
check "it restarted with its own settings" test "$(setting work_mem)" = "${own_work_mem}"
check "  and no run-settings are left" test ! -e "${dir}/run-settings"

# Refusals: the start fails, the server keeps running as it was, and each refusal is named.
own_pid=$(pid)
check "refused settings: the start fails" \
  exits_with 1 "${pgcluster}" start "${dir}" --set foo_bar=1 --set shared_buffers=abc --set work_mem=8MB
check "an unknown name is named with the server's reason" \
  has_line "${dir}/set-refused" '^foo_bar=1: unrecognized configuration parameter "foo_bar"$'
check "a bad value is named with the server's reason" \
  has_line "${dir}/set-refused" '^shared_buffers=abc: invalid value for parameter "shared_buffers": "abc"$'
check "a good one beside them is not named" lacks_line "${dir}/set-refused" '^work_mem'
check "the message says so" has_line "${data}/out" 'refuses a setting: foo_bar=1: unrecognized configuration parameter "foo_bar"; shared_buffers=abc'
check "the server was left alone" test "$(pid)" = "${own_pid}"
check "a value of the wrong shape is refused before the server sees it" \
  exits_with 1 "${pgcluster}" start "${dir}" --set 'work_mem=1 GB'
check "  and named" has_line "${dir}/set-refused" '^work_mem=1 GB: not NAME=VALUE'

# run: usage errors name the option and the value; a refused setting stops the run before the load.
export BB_DATA_DIR="${data}/run"
check "run --set 'a b': a usage error (exit 2)" exits_with 2 "${root}/controller/run" --set 'a b'
check "  naming the value" has_line "${data}/out" "run: --set: 'a b' is not NAME=VALUE"
check "run --set beside --db: a usage error" \
  exits_with 2 "${root}/controller/run" --set work_mem=8MB --db 'host=/nowhere'
check "  saying whose settings those are" has_line "${data}/out" "run: --set changes the embedded cluster's settings"
check "run with a refused --set fails" \
  exits_with 1 "${root}/controller/run" --set foo_bar=1 --initial-trade-days 2 --duration 10s --ramp-up 0
check "  naming the setting and the server's reason" \
  has_line "${data}/out" 'PostgreSQL refuses --set foo_bar=1: unrecognized configuration parameter "foo_bar"'
check "  with db/set-refused.txt in the results" nonempty "${BB_DATA_DIR}/results/0001/db/set-refused.txt"
check "  before the load" test ! -e "${BB_DATA_DIR}/results/0001/db/loader.log"

check_summary
