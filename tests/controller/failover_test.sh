#!/usr/bin/env bash
# brokerbench durability --failure failover (issue 39), on a throwaway embedded cluster of 1000
# customers and 2 trade days with a standby the run makes, 40 s before the failure and 30 s
# after it:
#   1. a synchronous standby (the default): the primary killed, the standby promoted, the
#      Brokerage House on the new primary with no restart; every trade acknowledged before the
#      failure is on the promoted standby (the test's own recount there), 0 lost, PASS;
#   2. an asynchronous standby whose WAL receiver this test stops (SIGSTOP) 10 s before the
#      failure and lets go (SIGCONT) once the primary is dead: the standby has the WAL it had
#      received (what sat in the socket), not the commits of those 10 s after it. The kit must
#      report lost > 0, FAIL, and exactly the trades the test's own recount finds missing on
#      the promoted standby.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
data="$(mktemp -d /tmp/bbfailover.XXXXXX)"
chmod 0711 "${data}"
export BB_DATA_DIR="${data}"
# shellcheck source=tests/controller/lib/check.sh
source "${root}/tests/controller/lib/check.sh"
# shellcheck source=tests/controller/lib/durability.sh
source "${root}/tests/controller/lib/durability.sh"

trap durability_cleanup EXIT

# The promoted standby's connection string, the benchmark's database.
promoted() {
  local c
  c=$("${root}/controller/pgcluster" conninfo "${data}/pg-standby")
  printf '%s\n' "${c/dbname=postgres/dbname=brokerbench}"
}

load_test_database 5750

check "bad usage: a wrong --standby is named" bash -c "'${root}/brokerbench' run --standby often 2>&1 | grep -q \"'often' is not 'sync' or 'async'\""
check "bad usage: --standby with --db is refused" bash -c "'${root}/brokerbench' run --standby sync --db 'host=127.0.0.1 dbname=x' 2>&1 | grep -q -- '--standby makes a standby of the embedded cluster'"

printf -- '--- 1. failover to a synchronous standby\n'
durability_run failover sync
finish
check "1: exit 0" test "${RC}" -eq 0
check "1: the run had a synchronous standby" has_line "${DIR}/readme.txt" '^standby: +synchronous, streaming'
check "1: the primary required it" has_line "${DIR}/readme.txt" 'synchronous_standby_names=bb_standby'
check "1: the standby was promoted" has_line "${DIR}/db/standby.log" 'received promote request'
check "1: trades were acknowledged before the failure" test "$(json "${DIR}" durability.acknowledged_before)" -gt 20
check "1: 0 lost" test "$(json "${DIR}" durability.lost)" -eq 0
check "1: verdict PASS" test "$(json "${DIR}" durability.verdict)" == PASS
check "1: a downtime under 60 s" seconds_between "$(json "${DIR}" durability.downtime_s)" 0 60
check "1: Trade-Results went on after the failure" has_line "${DIR}/report.txt" 'Durability: PASS'
read -r ack missing < <(recount "${DIR}" "$(promoted)")
check "1: the test's own recount on the promoted standby: acknowledged ${ack} = the kit's" test "${ack}" -eq "$(json "${DIR}" durability.acknowledged_before)"
check "1: the test's own recount finds none missing" test "${missing}" -eq 0
check "1: the promoted standby is a primary" test "$(psql "$(promoted)" -XAtc 'select pg_is_in_recovery()')" == f

printf -- '--- 2. failover to an asynchronous standby whose WAL receiver stopped 10 s before\n'
durability_run failover async --standby async --set checkpoint_timeout=1h --set max_wal_size=4GB
RESULTS2="${data}/results/0002"
start=$(mi_start_us "${RESULTS2}")
if [[ -n "${start}" ]]; then
  while (($(date +%s%6N) < start + 30000000)); do sleep 0.2; done
  spm=$(head -n 1 "${data}/pg-standby/data/postmaster.pid")
  receiver=$(pgrep -P "${spm}" -f 'walreceiver')
  kill -STOP "${receiver}"
  printf 'stopped the standby'"'"'s WAL receiver (pid %s) 10 s before the failure\n' "${receiver}"
  for ((n = 0; n < 1000; n++)); do
    grep -qs '^failure_us=' "${RESULTS2}/durability/durability.conf" && break
    sleep 0.05
  done
  kill -CONT "${receiver}"
fi
finish
check "2: exit 0" test "${RC}" -eq 0
check "2: the run had an asynchronous standby" has_line "${DIR}/readme.txt" '^standby: +asynchronous, streaming'
lost=$(json "${DIR}" durability.lost)
check "2: lost > 0 (${lost})" test "${lost}" -gt 0
check "2: verdict FAIL" test "$(json "${DIR}" durability.verdict)" == FAIL
read -r ack missing < <(recount "${DIR}" "$(promoted)")
check "2: the test's own recount: acknowledged ${ack} = the kit's" test "${ack}" -eq "$(json "${DIR}" durability.acknowledged_before)"
check "2: the test's own recount on the promoted standby finds ${missing} missing = the kit's lost ${lost}" test "${missing}" -eq "${lost}"

check_summary
