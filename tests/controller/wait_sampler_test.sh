#!/usr/bin/env bash
# The database host's system monitor samples pg_stat_activity (controller/sysmon --db, which
# starts controller/wait-sampler): against a throwaway cluster with backends asleep in
# pg_sleep, each second has its "all" line and their wait; the sampler's own backend and other
# databases' are not counted; one psql does it all, and none is left when the monitor ends.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=tests/controller/lib/check.sh
source "${root}/tests/controller/lib/check.sh"
pgcluster="${root}/controller/pgcluster"
data="$(mktemp -d /tmp/bbwaitstest.XXXXXX)"
chmod 0711 "${data}"
declare -a sleepers=()
cleanup() {
  local pid
  for pid in "${sleepers[@]}"; do kill "${pid}" 2>/dev/null || true; done
  "${pgcluster}" destroy "${data}/pg" >/dev/null 2>&1 || true
  rm -rf -- "${data}"
}
trap cleanup EXIT
unset PGPASSWORD PGPASSFILE

"${pgcluster}" init "${data}/pg" --throwaway --no-tcp >/dev/null
"${pgcluster}" start "${data}/pg" >/dev/null
admin=$("${pgcluster}" conninfo "${data}/pg")
psql "${admin}" -Xq -c 'create database bench' -c 'create database other'
bench="${admin/dbname=postgres/dbname=bench}"
other="${admin/dbname=postgres/dbname=other}"

# Three backends of the benchmark database asleep, one of another database.
for conninfo in "${bench}" "${bench}" "${bench}" "${other}"; do
  psql "${conninfo}" -Xq -c 'select pg_sleep(30)' >/dev/null 2>&1 &
  sleepers+=($!)
done
for _ in {1..50}; do
  [[ "$(psql "${admin}" -XAtc "select count(*) from pg_stat_activity where wait_event = 'PgSleep'")" != 4 ]] || break
  sleep 0.1
done

"${root}/controller/sysmon" "${data}/sys" --seconds 3 --db "${bench}" &
sysmon=$!
# The monitor's sampling psql, once it has started (at most 5 s).
psql_pid=""
for _ in {1..50}; do
  psql_pid=$(pgrep -P "${sysmon}" -x psql || true)
  [[ -z "${psql_pid}" ]] || break
  sleep 0.1
done
check "one psql samples for the monitor" test "$(wc -w <<<"${psql_pid}")" = 1
password=$(sed -n 's/^\*:\*:\*:\*://p' "${data}/pg/pgpass")
check "its command line holds no password" \
  lacks_line <(tr '\0' ' ' <"/proc/${psql_pid}/cmdline") "${password}"
wait "${sysmon}"
waits="${data}/sys/waits.csv"

check "the header" test "$(head -n 1 "${waits}")" = 'time_us,state,wait_event_type,wait_event,backends'
check "a sample a second (3 s: 3 or 4 of them)" \
  grep -qE '^[34]$' <(grep -c '^[0-9]*,all,,,' "${waits}")
check "each sample counts the database's 3 client backends, not the sampler's, not the other database's" \
  test "$(grep ',all,' "${waits}" | cut -d, -f5 | sort -u)" = 3
check "... all three asleep: active, Timeout, PgSleep" \
  test "$(grep ',active,' "${waits}" | cut -d, -f2- | sort -u)" = 'active,Timeout,PgSleep,3'
check "... the same time on a sample's lines" \
  test "$(cut -d, -f1 "${waits}" | sed 1d | sort -u | wc -l)" = "$(grep -c ',all,' "${waits}")"
check "nothing on the sampler's stderr" test ! -s "${data}/sys/wait-sampler.err"
check "no psql left once the monitor ended" test ! -e "/proc/${psql_pid}"

# A database that cannot be reached: the file has its header, the reason is kept, and the
# monitor itself goes on and ends as asked.
check "an unreachable database: the monitor still ends well" \
  "${root}/controller/sysmon" "${data}/down" --seconds 1 --db "host=${data}/nowhere dbname=bench"
check "... the reason is in wait-sampler.err" has_line "${data}/down/wait-sampler.err" 'nowhere'

check_summary
