# shellcheck shell=bash
# `bench overhead --vs-pgbench`: the same Trade-Status SQL driven by pgbench and by bb-netbench
# through bb-brokerage-house; each run's figures come from postprocess/bb-bench-summary
# (pgbench-run, bh-run), the medians from its pgbench table. Sourced by controller/bench-overhead;
# needs lib/common.sh, BB_ROOT, BB_BUILD_DIR, and bench-overhead's bench_pids, SIZING,
# stop_bench_processes and commit_line.

# The postgres_us column of the last line of a bb-cpu-sampler file.
postgres_us() {
  local -a head last
  local i
  IFS=, read -r -a head <"$1"
  IFS=, read -r -a last < <(tail -n 1 "$1")
  for i in "${!head[@]}"; do
    [[ "${head[i]}" != postgres_us ]] || { printf '%s\n' "${last[i]}"; return; }
  done
  die "bench overhead: $1 has no postgres_us column"
}

# pgbench scripts of the Trade-Status transaction as each frames mode sends it.
write_pgbench_scripts() {
  local work="$1" first="$2" count="$3"
  {
    printf '\\set acct random(%s, %s)\n' "${first}" "$((first + count - 1))"
    printf 'SELECT * FROM bb_trade_status(:acct);\n'
  } >"${work}/ts-server.sql"
  {
    printf '\\set acct random(%s, %s)\n' "${first}" "$((first + count - 1))"
    printf 'BEGIN ISOLATION LEVEL READ COMMITTED;\n'
    printf 'SELECT t_id, t_dts, st_name, tt_name, t_s_symb, t_qty, t_exec_name, t_chrg, s_name, ex_name FROM trade JOIN status_type ON st_id = t_st_id JOIN trade_type ON tt_id = t_tt_id JOIN security ON s_symb = t_s_symb JOIN exchange ON ex_id = s_ex_id WHERE t_ca_id = :acct ORDER BY t_dts DESC, t_id DESC LIMIT 50;\n'
    printf 'SELECT c_l_name, c_f_name, b_name FROM customer_account JOIN customer ON c_id = ca_c_id JOIN broker ON b_id = ca_b_id WHERE ca_id = :acct;\n'
    printf 'COMMIT;\n'
  } >"${work}/ts-client.sql"
}

# One pgbench run; prints "tps=.. txns=.. seconds=.. driver_us=.. pg_us=..".
pgbench_run() {
  local conninfo="$1" frames="$2" conns="$3" seconds="$4" work="$5"
  "${BB_ROOT}/postprocess/bb-cpu-sampler" "${work}/pg-sampler.csv" --pgdata "${BB_DATA_DIR}/pg/data" &
  local sampler=$!
  bench_pids+=("${sampler}")
  sleep 1.2
  local pg0 out times
  pg0=$(postgres_us "${work}/pg-sampler.csv")
  # The subshell's `times` gives the CPU of its reaped children: pgbench alone.
  out=$( (pgbench -n -M prepared -c "${conns}" -j 1 -T "${seconds}" -f "${work}/ts-${frames}.sql" "${conninfo}" 2>&1; times) ) ||
    die "bench overhead: pgbench failed: ${out}"
  sleep 1.2
  local pg1
  pg1=$(postgres_us "${work}/pg-sampler.csv")
  kill -TERM "${sampler}" 2>/dev/null || true
  wait "${sampler}" 2>/dev/null || true
  bench_pids=()
  times=$(tail -n 1 <<<"${out}")
  "${BB_ROOT}/postprocess/bb-bench-summary" pgbench-run --pg-us "$((pg1 - pg0))" --times "${times}" - <<<"${out}" ||
    die "bench overhead: pgbench's figures: see above"
}

# One Brokerage House run; prints "tps=.. txns=.. bh_us=.. client_us=.. driver_us=.. pg_us=..".
bh_run() {
  local conninfo="$1" frames="$2" conns="$3" seconds="$4" work="$5" first="$6" count="$7"
  local bh="${BB_BUILD_DIR}/brokerage_house/bb-brokerage-house"
  local netbench="${BB_BUILD_DIR}/brokerage_house/netbench/bb-netbench"
  rm -f "${work}/bh.port"
  "${bh}" --db "${conninfo}" --frames "${frames}" --workers "${conns}" --listen 127.0.0.1:0 \
    --port-file "${work}/bh.port" --summary-seconds 0 --log-level warn 2>"${work}/bh.log" &
  local bh_pid=$!
  bench_pids+=("${bh_pid}")
  local i
  for ((i = 0; i < 300; i++)); do
    [[ ! -s "${work}/bh.port" ]] || break
    kill -0 "${bh_pid}" 2>/dev/null || die "bench overhead: bb-brokerage-house exited; see ${work}/bh.log"
    sleep 0.1
  done
  [[ -s "${work}/bh.port" ]] || die "bench overhead: bb-brokerage-house did not listen within 30 s"
  "${BB_ROOT}/postprocess/bb-cpu-sampler" "${work}/pg-sampler.csv" --pgdata "${BB_DATA_DIR}/pg/data" &
  local sampler=$!
  bench_pids+=("${sampler}")
  sleep 1.2
  local pg0 bh0 line pg1 bh1
  pg0=$(postgres_us "${work}/pg-sampler.csv")
  bh0=$(proc_cpu_us "${bh_pid}")
  line=$("${netbench}" client --target "127.0.0.1:$(cat "${work}/bh.port")" --connections "${conns}" \
    --seconds "${seconds}" --accounts "${first}:${count}" "${SIZING[@]}" 2>&1) || die "bench overhead: bb-netbench failed: ${line}"
  bh1=$(proc_cpu_us "${bh_pid}")
  sleep 1.2
  pg1=$(postgres_us "${work}/pg-sampler.csv")
  stop_bench_processes
  "${BB_ROOT}/postprocess/bb-bench-summary" bh-run --pg-us "$((pg1 - pg0))" --bh-us "$((bh1 - bh0))" - <<<"${line}" ||
    die "bench overhead: the Brokerage House run's figures: see above"
}

bench_vs_pgbench() {
  local conns_list="$1" seconds="$2" repeat="$3" variants="$4" out="$5" work="$6"
  local conninfo first count
  resolve_conninfo "" ""
  conninfo="${DB_CONNINFO}"
  read -r first count < <(psql "${conninfo}" -XAt -F ' ' -c 'select min(ca_id), count(*) from customer_account') ||
    die "bench overhead: cannot read customer_account; load the database first (./brokerbench build-db)"
  [[ -n "${first}" && "${count}" -gt 0 ]] || die "bench overhead: the database has no accounts"
  psql "${conninfo}" -XAtc 'select bb_frames_version()' >/dev/null 2>&1 ||
    "${BB_BUILD_DIR}/brokerage_house/bb-txn" --db "${conninfo}" TS --brief >/dev/null ||
    die "bench overhead: cannot install the server-side frames"
  local c_ sf_ d_
  read -r c_ sf_ d_ < <(psql "${conninfo}" -XAt -F ' ' -c \
    'select customers, scale_factor, initial_trade_days from brokerbench_load_info')
  SIZING=(--customers "${c_}" --scale-factor "${sf_}" --initial-trade-days "${d_}")
  write_pgbench_scripts "${work}" "${first}" "${count}"
  {
    printf 'brokerbench bench overhead --vs-pgbench: Trade-Status, %s s per run, connections %s, frames %s, %s pairs; %s\n' \
      "${seconds}" "${conns_list}" "${variants}" "${repeat}" "$(date -u)"
    commit_line
    printf 'accounts: %s from %s (uniform); database: %s\n' "${count}" "${first}" "$(redact_conninfo "${conninfo}")"
  } | tee "${out}"
  local f c r line
  for f in ${variants}; do
    for c in ${conns_list}; do
      for ((r = 1; r <= repeat; r++)); do
        local order="pgbench bh"
        ((r % 2 == 1)) || order="bh pgbench"
        local who
        for who in ${order}; do
          if [[ "${who}" == pgbench ]]; then
            line=$(pgbench_run "${conninfo}" "${f}" "${c}" "${seconds}" "${work}")
          else
            line=$(bh_run "${conninfo}" "${f}" "${c}" "${seconds}" "${work}" "${first}" "${count}")
          fi
          printf 'frames=%s connections=%s pair=%s driver=%s %s\n' "${f}" "${c}" "${r}" "${who}" "${line}" |
            tee -a "${work}/pgbench-runs.txt" >&2
        done
      done
    done
  done
  "${BB_ROOT}/postprocess/bb-bench-summary" pgbench "${work}/pgbench-runs.txt" | tee -a "${out}"
  [[ ${PIPESTATUS[0]} -eq 0 ]] || die "bench overhead: the table failed (runs: ${work}/pgbench-runs.txt)"
}
