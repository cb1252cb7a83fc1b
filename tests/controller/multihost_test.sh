#!/usr/bin/env bash
# A multi-machine run on one machine: five "hosts" as Linux network namespaces on a bridge,
# each with its own address and sshd (tests/controller/lib/netns.sh). PostgreSQL runs on
# host db, the Brokerage House on bh, the market emulator on mee, and two customer emulators
# on ce1 and ce2; `./brokerbench run --config FILE` starts them over ssh. Checks:
#   1. the run completes and every component ran in its own namespace, on that host's address;
#      the empty database was loaded from ce1, the configuration's [loader] host;
#   2. every host's logs and system monitor samples are in the results directory under its name;
#   3. the merged report's per-type counts equal the sum of all hosts' mix-log rows;
#   4. one emulator sends Trade-Cleanup and Data-Maintenance, the other neither;
#   5. a configuration naming an unreachable host fails within seconds, names the host, and
#      starts nothing.
# Skips (prints SKIPPED and why) where namespaces cannot be made: it needs root, as in CI.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=tests/controller/lib/check.sh
source "${root}/tests/controller/lib/check.sh"
# shellcheck source=tests/controller/lib/results.sh
source "${root}/tests/controller/lib/results.sh"
# shellcheck source=tests/controller/lib/netns.sh
source "${root}/tests/controller/lib/netns.sh"
# shellcheck source=tests/controller/lib/dbhost.sh
source "${root}/tests/controller/lib/dbhost.sh"

if ! reason=$(netns_check); then
  printf 'SKIPPED: %s\n' "${reason}"
  exit 0
fi

dbhost_dirs "${root}" bbmultihost



netns_setup db bh mee ce1 ce2
netns_start_sshd db bh mee ce1 ce2
printf 'hosts: db=%s bh=%s mee=%s ce1=%s ce2=%s\n' "$(netns_addr db)" "$(netns_addr bh)" \
  "$(netns_addr mee)" "$(netns_addr ce1)" "$(netns_addr ce2)"

# PostgreSQL on host db, listening on db's address only, trusting the test's subnet.
dbhost_start
psql "$("${root}/controller/pgcluster" conninfo "${pgdir}")" -Xqc 'create database bb' >/dev/null
conninfo="host=$(netns_addr db) port=5432 dbname=bb user=brokerbench connect_timeout=5"

write_config() {
  local ce2_host="$1"
  cat <<CONFIG
# brokerbench run configuration: the namespace test's five hosts
[test]
customers = 1000
initial_trade_days = 10
ramp_up = 5s
duration = 70s
comment = multi-host namespace test

[database]
conninfo = ${conninfo}
host = db

[brokerage_house]
host = bh
listen = $(netns_addr bh):30000

[market_emulator]
host = mee
listen = $(netns_addr mee):30001

[customer_emulator]
host = ce1
users = 3

[customer_emulator]
host = ${ce2_host}
users = 3

[loader]
host = ce1

[ssh]
options = -F ${NETNS_SSH_CONFIG}
work_dir = ${data}/work
CONFIG
}

# --- 1. a run across five hosts ------------------------------------------------------------
write_config ce2 >"${data}/run.conf"
out="${data}/run1.out"
rc=0
"${root}/brokerbench" run --config "${data}/run.conf" >"${out}" 2>&1 || rc=$?
cat "${out}"
dir="${data}/results/0001"
check "the run exits 0" test "${rc}" -eq 0
check "it prints the TRTPS" has_line "${out}" '^ *TRTPS: [0-9]'
check "it prints the verdict (VALID, or INVALID with reasons in the report)" \
  has_line "${out}" '^ *Verdict: (VALID|INVALID \([0-9]+ reasons?, see report\))$'
check "it checked the hosts' clocks" has_line "${dir}/run.log" 'host ce2: clock -?[0-9.]+ ms'
for h in bh mee ce1 ce2; do
  check "the component on ${h} ran in ${h}'s namespace" \
    has_line "$(echo "${dir}"/*/"${h}"/remote-exec.host | cut -d ' ' -f 1)" " $(netns_addr "${h}")/24$"
done
check "the database was loaded from ce1, the [loader] host, through build-db --config" \
  has_line "${dir}/db/load/loader/ce1/loader.log" '^Loading load units 0-0 '
check "... by a loader in ce1's namespace" \
  has_line "${dir}/db/load/loader/ce1/remote-exec.host" " $(netns_addr ce1)/24$"
check "the Brokerage House listened on bh's address" has_line "${dir}/bh/bh/bh.log" "$(netns_addr bh):30000"
for h in db bh mee ce1 ce2; do
  check "system monitor samples from ${h}" test "$(wc -l <"${dir}/sys/${h}/sysstat.csv")" -ge 60
done
for f in bh/bh/bh.log mee/mee/mix-mee.csv mee/mee/mee.log ce/ce1/ce.log ce/ce2/ce.log report.txt results.json; do
  check "results directory has ${f}" nonempty "${dir}/${f}"
done
ce1_log=$(echo "${dir}"/ce/ce1/mix-ce-*.csv)
ce2_log=$(echo "${dir}"/ce/ce2/mix-ce-*.csv)
check "customer emulator 1 ran Trade-Cleanup" has_line "${ce1_log}" '^[0-9]+,TC,'
check "customer emulator 1 sent Data-Maintenance" has_line "${ce1_log}" '^[0-9]+,DM,'
check "customer emulator 2 sent neither" lacks_line "${ce2_log}" '^[0-9]+,(TC|DM),'
check "customer emulator 2 started after Trade-Cleanup" has_line "${dir}/run.log" 'waiting for Trade-Cleanup'

# The sum of every host's rows in the measurement interval, per type, against the merged report.
raw=$(raw_counts "${dir}")
reported=$(report_counts "${dir}")
printf 'all hosts rows:\n%s\nreport:\n%s\n' "${raw}" "${reported}"
check "the merged report's counts equal the sum of all hosts' rows" test "${raw}" == "${reported}"
check "both emulators' rows are in it" test "$(grep -c ',TS,' "${ce1_log}")" -gt 0 -a "$(grep -c ',TS,' "${ce2_log}")" -gt 0
check "no component is left running on any host" test -z "$(for h in bh mee ce1 ce2; do ip netns pids "${NETNS_NS[${h}]}" | while read -r p; do ps -o args= -p "${p}"; done; done | grep bb- || true)"

# --- 2. an unreachable host ---------------------------------------------------------------
write_config "$(netns_unused_addr)" >"${data}/bad.conf"
out="${data}/run2.out"
rc=0
t0=${SECONDS}
"${root}/brokerbench" run --config "${data}/bad.conf" >"${out}" 2>&1 || rc=$?
elapsed=$((SECONDS - t0))
cat "${out}"
dir="${data}/results/0002"
check "a configuration with an unreachable host fails (exit 1)" test "${rc}" -eq 1
check "... within seconds (${elapsed} s)" test "${elapsed}" -le 20
check "... naming the host" has_line "${out}" "host $(netns_unused_addr): cannot reach it over ssh"
check "... and starts nothing" lacks_line "${dir}/run.log" 'start(ing|ed) '

check_summary
