# shellcheck shell=bash
# shellcheck disable=SC2034 # CRASH_* are read by controller/durability
# The failure of a durability test (controller/durability, issue 39; TPC-E clause 7.5) on the
# embedded cluster, and the database's side of the recount. Sourced by controller/durability.

# crash_cluster DIR: every process of the cluster in DIR killed at once with SIGKILL (clause
# 7.5's loss of processing and of memory: shared memory and the WAL buffers not yet written go
# with them). The postmaster is stopped first (SIGSTOP), so that it forks nothing while its
# children are listed, then it and every child get SIGKILL in one kill(1). Sets CRASH_US (the
# wall clock of the kill, µs) and CRASH_PIDS (how many were killed); false with CRASH_PROBLEM.
crash_cluster() {
  local dir="$1" pm i
  CRASH_PROBLEM=""
  pm=$(head -n 1 "${dir}/data/postmaster.pid" 2>/dev/null) || pm=""
  if [[ ! "${pm}" =~ ^[1-9][0-9]*$ ]] || ! kill -0 "${pm}" 2>/dev/null; then
    CRASH_PROBLEM="no running postmaster in ${dir}/data/postmaster.pid ('${pm}')"
    return 1
  fi
  kill -STOP "${pm}"
  local -a pids=("${pm}")
  mapfile -t -O 1 pids < <(pgrep -P "${pm}" || true)
  CRASH_US=$(date +%s%6N)
  kill -KILL "${pids[@]}" 2>/dev/null || true
  CRASH_PIDS=${#pids[@]}
  for ((i = 0; i < 100; i++)); do
    kill -0 "${pids[@]}" 2>/dev/null || return 0
    nap 0.1
  done
  CRASH_PROBLEM="a process of the cluster outlived SIGKILL for 10 s (pids ${pids[*]})"
  return 1
}

# restart_cluster DIR: starts the cluster again with the settings of the run (DIR/run-settings:
# --set NAME=VALUE lines and memory=BYTES), so that crash recovery replays the WAL.
restart_cluster() {
  local dir="$1" line
  local -a args=()
  if [[ -f "${dir}/run-settings" ]]; then
    while IFS= read -r line; do
      case "${line}" in
        memory=*) args+=(--memory "${line#memory=}") ;;
        ?*) args+=(--set "${line}") ;;
      esac
    done <"${dir}/run-settings"
  fi
  "${BB_ROOT}/controller/pgcluster" start "${dir}" "${args[@]}"
}

# lookup_acknowledged RESULTS CONNINFO: in the database of CONNINFO, the database's state of every trade the mix logs acknowledged
# (RESULTS/durability/acknowledged.csv, written by bb-report's Durability.pm: trade_id per
# line after a header) in RESULTS/durability/lookup.csv: trade_id, found (t/f), t_st_id,
# t_is_cash, settlement (t/f), cash_transaction (t/f). The frames of Trade-Result (clause
# 3.3.8) complete the trade (T_ST_ID 'CMPT'), insert its SETTLEMENT row, and a CASH_TRANSACTION
# row when the trade is a cash one.
lookup_acknowledged() {
  local results="$1" conninfo="$2"
  psql "${conninfo}" -X -q -v ON_ERROR_STOP=1 >/dev/null <<SQL
create temporary table acknowledged (trade_id bigint primary key);
\\copy acknowledged from '${results}/durability/acknowledged.csv' with (format csv, header true)
\\copy (select a.trade_id, t.t_id is not null as found, t.t_st_id, t.t_is_cash, exists (select 1 from settlement s where s.se_t_id = a.trade_id) as settlement, exists (select 1 from cash_transaction c where c.ct_t_id = a.trade_id) as cash_transaction from acknowledged a left join trade t on t.t_id = a.trade_id order by a.trade_id) to '${results}/durability/lookup.csv' with (format csv, header true)
SQL
}
