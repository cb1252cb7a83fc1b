# shellcheck shell=bash
# shellcheck disable=SC2034 # CRASH_* and REAPED_US are read by controller/durability
# The failure of a durability test (controller/durability, issue 39; TPC-E clause 7.5) on the
# embedded cluster, and the database's side of the recount. Sourced by controller/durability,
# after lib/component-status.sh (process_lives).

# crash_cluster DIR: every process of the cluster in DIR killed at once with SIGKILL (clause
# 7.5's loss of processing and of memory: shared memory and the WAL buffers not yet written go
# with them). The postmaster is stopped first (SIGSTOP), so that it forks nothing while its
# children are listed, then it and every child get SIGKILL in one kill(1). Sets CRASH_US (the
# wall clock of the kill, µs) and CRASH_PIDS (how many were killed); false with CRASH_PROBLEM.
crash_cluster() {
  local dir="$1" pm
  CRASH_PROBLEM=""
  pm=$(head -n 1 "${dir}/data/postmaster.pid" 2>/dev/null) || pm=""
  if [[ ! "${pm}" =~ ^[1-9][0-9]*$ ]] || ! kill -0 "${pm}" 2>/dev/null; then
    CRASH_PROBLEM="no running postmaster in ${dir}/data/postmaster.pid ('${pm}')"
    return 1
  fi
  kill -STOP "${pm}"
  local -a pids=("${pm}")
  mapfile -t -O 1 pids < <(pgrep -P "${pm}" || true)
  # The clock from bash itself, not date(1): a fork and exec on a busy machine took up to
  # 140 ms, in which transactions still committed "after the failure".
  CRASH_US=${EPOCHREALTIME//[!0-9]/}  # its decimal point follows the locale
  kill -KILL "${pids[@]}" 2>/dev/null || true
  CRASH_PIDS=${#pids[@]}
  # Dead once exited: gone, or a zombie, which has released its memory, shared memory and
  # sockets and only waits for its reaper. The killed postmaster's and its children's is PID 1
  # (they are orphans), which in a container here reaped only every 2 s or so: time a failover
  # need not wait (restart_cluster waits for the postmaster's pid, as PostgreSQL needs).
  within_10s all_exited "${pids[@]}" && return 0
  CRASH_PROBLEM="a process of the cluster outlived SIGKILL for 10 s (pids ${pids[*]})"
  return 1
}

# all_exited PID...: true once every PID has exited: none is left, or a zombie (process_lives,
# lib/component-status.sh).
all_exited() {
  local p
  for p in "$@"; do
    ! process_lives "${p}" || return 1
  done
}

# gone PID: true once no process PID exists, not even a zombie.
gone() { ! kill -0 "$1" 2>/dev/null; }

# within_10s COMMAND...: true once COMMAND succeeds, tried every 20 ms for up to 10 s.
within_10s() {
  local i
  for ((i = 0; i < 500; i++)); do
    "$@" && return 0
    nap 0.02
  done
  return 1
}

# restart_cluster DIR: starts the cluster again with the settings of the run (DIR/run-settings:
# --set NAME=VALUE lines and memory=BYTES), so that crash recovery replays the WAL. On its own
# port: the Brokerage House reconnects to it, so a port another program took while the cluster
# was down fails the restart instead of moving it (pgcluster start --same-port).
restart_cluster() {
  local dir="$1" line pm
  local -a args=(--same-port)
  # A new postmaster refuses to start while the pid in postmaster.pid exists at all, even as a
  # zombie: wait (up to 10 s) for the old one's reaper; pg_ctl then says why if it is still there.
  # REAPED_US: when it was gone (durability.conf's reaped_us).
  pm=$(head -n 1 "${dir}/data/postmaster.pid" 2>/dev/null) || pm=""
  [[ ! "${pm}" =~ ^[1-9][0-9]*$ ]] || within_10s gone "${pm}" || true
  REAPED_US=${EPOCHREALTIME//[!0-9]/}
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

# lookup_acknowledged RESULTS CONNINFO: in the database of CONNINFO, the state of every trade
# the mix logs acknowledged (RESULTS/durability/acknowledged.csv, written by bb-report's
# Durability.pm: trade_id per line after a header) in RESULTS/durability/lookup.csv: trade_id,
# found (t/f), t_st_id, t_is_cash, settlement (t/f), cash_transaction (t/f), holding_history
# (t/f). The frames of Trade-Result (clause 3.3.8) complete the trade (T_ST_ID 'CMPT'), insert
# its SETTLEMENT row, a CASH_TRANSACTION row when the trade is a cash one, and (frame 2) a
# HOLDING_HISTORY row with HH_T_ID = the trade for each lot it closes, changes or opens: at
# least one for every trade it completes.
lookup_acknowledged() {
  local results="$1" conninfo="$2"
  psql "${conninfo}" -X -q -v ON_ERROR_STOP=1 >/dev/null <<SQL
create temporary table acknowledged (trade_id bigint primary key);
\\copy acknowledged from '${results}/durability/acknowledged.csv' with (format csv, header true)
\\copy (select a.trade_id, t.t_id is not null as found, t.t_st_id, t.t_is_cash, exists (select 1 from settlement s where s.se_t_id = a.trade_id) as settlement, exists (select 1 from cash_transaction c where c.ct_t_id = a.trade_id) as cash_transaction, exists (select 1 from holding_history h where h.hh_t_id = a.trade_id) as holding_history from acknowledged a left join trade t on t.t_id = a.trade_id order by a.trade_id) to '${results}/durability/lookup.csv' with (format csv, header true)
SQL
}

# check_recovered RESULTS CONNINFO: clause 7.3.2's consistency conditions, which must hold after
# recovery as after a load, and the kit's other checks, on the recovered database of CONNINFO:
# bb-loader --check (what 'brokerbench check-db' runs; the run built it, and building again here
# would only stretch the time to the recount), its output then "exit status: N" in
# RESULTS/durability/check-db.txt for bb-report (CheckDb.pm). A failed check is a result, not a
# failure of the command: false only when the file cannot be written.
check_recovered() {
  local conninfo="$2" out="$1/durability/check-db.txt" rc=0
  "${BB_BUILD_DIR}/loader/bb-loader" --db "${conninfo}" --check >"${out}" 2>&1 || rc=$?
  printf 'exit status: %s\n' "${rc}" >>"${out}"
}
