# shellcheck shell=bash
# shellcheck disable=SC2034 # its globals are read by controller/run and the other lib files
# controller/run's results directory: its settings (run.conf, read by the post-processor), its
# readme, the database snapshots and server log, and the report at the end. Sourced by
# controller/run; needs its settings (CUSTOMERS, ..., CONFIG, HOSTS) and lib/plan.sh.

RESULTS=""  # the run's numbered directory

# The run's own numbered directory under RESULTS_PARENT, and results/latest pointing at it.
make_results_dir() {
  RESULTS=$(make_numbered_dir "${RESULTS_PARENT}")
  ln -sfn "${RESULTS##*/}" "${RESULTS_PARENT}/latest" 2>/dev/null || true
  CONTROLLER_LOG="${RESULTS}/run.log"
  mkdir -p "${RESULTS}/db"
}

conf() { printf '%s=%s\n' "$1" "$2" >>"${RESULTS}/run.conf"; }
conf_value() { sed -n "s/^$1=//p" "${RESULTS}/run.conf" | tail -n 1; }

write_run_conf() {
  : >"${RESULTS}/run.conf"
  printf '# brokerbench run settings (read by the post-processor)\n' >>"${RESULTS}/run.conf"
  conf format 1
  conf customers "${CUSTOMERS}"
  conf scale_factor "${SCALE_FACTOR}"
  conf initial_trade_days "${TRADE_DAYS}"
  conf users "${USERS}"
  conf ramp_up_s "${RAMP_UP}"
  conf duration_s "${DURATION}"
  conf seed "${SEED}"
  conf seed_source "${SEED_SOURCE}"
  local i seeds
  seeds="mee=$(emulator_seed "${SEED}" mee)"
  for i in "${!CFG_CE_HOSTS[@]}"; do seeds+=" ce$((i + 1))=$(emulator_seed "${SEED}" "${i}")"; done
  conf emulator_seeds "${seeds}"
  conf db_workers "${DB_WORKERS}"
  conf frames "${FRAMES}"
  conf transport "$([[ -n "${SOCKET_DIR}" ]] && echo unix || echo tcp)"
  conf comment "${COMMENT}"
  conf pg_set "${SETS[*]}"
  conf profile "${PROFILE}"
  conf block_trace "${BLOCK_TRACE}"
  conf started_utc "$(date -u +%FT%TZ)"
  conf kit_commit "$(kit_commit)"
  conf command "${COMMAND_SHOWN}"
  local h labels=""
  for h in "${HOSTS[@]}"; do labels+="${labels:+ }$(host_label "${h}")"; done
  conf hosts "${labels}"
  conf config "${CONFIG}"
}

kit_commit() { "${BB_ROOT}/controller/version" | cut -d ' ' -f 2; }

write_readme() {
  {
    printf 'brokerbench results %s\n\n' "${RESULTS##*/}"
    printf 'date:       %s\n' "$(date -u)"
    printf 'command:    %s\n' "${COMMAND_SHOWN}"
    printf 'comment:    %s\n' "${COMMENT:-(none)}"
    printf 'kit:        commit %s\n' "$(kit_commit)"
    printf 'controller: %s, %s cores, %s MB memory\n' "$(host_label local)" "$(nproc)" \
      "$(mem_total_mb)"
    printf 'uname:      %s\n' "$(uname -a)"
    printf 'compiler:   %s\n' "$(g++ --version 2>/dev/null | head -n 1)"
    printf 'database:   %s\n' "$(psql "${CONNINFO}" -XAtc 'select version()' 2>/dev/null || echo unknown)"
    [[ "${CONNINFO_EMBEDDED}" -ne 1 ]] ||
      printf 'server bin: %s (the embedded cluster)\n' "$(cat "${BB_DATA_DIR}/pg/pg-bin" 2>/dev/null || echo unknown)"
    printf 'conninfo:   %s\n' "${CONNINFO_SHOWN}"
    printf 'sizing:     %s customers, scale factor %s, %s initial trade days\n' \
      "${CUSTOMERS}" "${SCALE_FACTOR}" "${TRADE_DAYS}"
    printf 'test:       %s users, ramp-up %s s, measurement interval %s s, pacing %s s\n' \
      "${USERS}" "${RAMP_UP}" "${DURATION}" "${PACING}"
    local i how="from the time of day" ce_seeds=""
    [[ "${SEED_SOURCE}" != fixed ]] || how="fixed by --seed: not compliant, clause 5.8.2"
    for i in "${!CFG_CE_HOSTS[@]}"; do ce_seeds+="${ce_seeds:+ }$(emulator_seed "${SEED}" "${i}")"; done
    printf 'seeds:      %s (%s); market emulator %s, customer emulators %s\n' "${SEED}" "${how}" \
      "$(emulator_seed "${SEED}" mee)" "${ce_seeds}"
    printf 'BH:         %s database workers, %s-side frames\n' "${DB_WORKERS}" "${FRAMES}"
    [[ ${#SETS[@]} -eq 0 ]] ||
      printf 'pg set:     %s (--set: the embedded cluster started with them for this run; its files unchanged)\n' "${SETS[*]}"
    [[ -z "${STANDBY}" ]] ||
      printf 'standby:    %s, streaming, in %s (port %s); the Brokerage House connects to the primary of the two\n' \
        "$([[ "${STANDBY}" == sync ]] && echo synchronous || echo asynchronous)" "$(conf_value standby_dir)" "$(conf_value standby_port)"
    [[ -z "${DB_MEMORY}" ]] ||
      printf 'db memory:  %s: %s of the database'"'"'s %s, a memory cgroup (%s), with %s; %s of the data directory'"'"'s %s in the page cache at the start\n' \
        "${DB_MEMORY}" "$(human_mb $(($(conf_value db_memory_bytes) / 1048576)))" \
        "$(human_mb $(($(conf_value db_memory_database_bytes) / 1048576)))" "$(conf_value db_memory_cgroup)" \
        "$(conf_value db_memory_settings)" "$(human_mb $(($(conf_value db_memory_cached_at_start_bytes) / 1048576)))" \
        "$(human_mb $(($(conf_value db_memory_data_dir_bytes) / 1048576)))"
    [[ -z "${CONFIG}" ]] || printf 'config:     %s\n' "${CONFIG}"
    local h
    for h in "${HOSTS[@]}"; do printf 'host:       %s\n' "$(host_label "${h}")"; done
    [[ ${#CLOCK_NOTES[@]} -eq 0 ]] || printf 'clock:      %s\n' "${CLOCK_NOTES[@]}"
    printf '\n' 
    printf 'PostgreSQL settings not at their defaults (all of them: db/settings.csv):\n'
    server_settings "${CONNINFO}" 2>/dev/null | sed 's/^/  /' || true
  } >"${RESULTS}/readme.txt"
}

# The database before and after the run (controller/db-snapshot): statistics views, settings,
# and the trades the run completed, for the report's count of Trade-Results in the database.
snapshot_database() {
  "${BB_ROOT}/controller/db-snapshot" "${CONNINFO}" "${RESULTS}" "$1" 2>&1 | while IFS= read -r line; do
    note "${line#brokerbench: warning: }"
  done
}

# The embedded cluster's server log lines written during the run.
copy_server_log() {
  [[ -f "${RESULTS}/.started" && -d "${BB_DATA_DIR}/pg/log" && "${CONNINFO_EMBEDDED:-0}" -eq 1 ]] || return 0
  find "${BB_DATA_DIR}/pg/log" -name 'postgresql-*.log' -newer "${RESULTS}/.started" -print0 2>/dev/null |
    xargs -0 -r cat >"${RESULTS}/db/postgresql.log" 2>/dev/null || true
  # A log file that was already open at the start: keep its lines from the run's start on.
  local current
  current=$(find "${BB_DATA_DIR}/pg/log" -name 'postgresql-*.log' ! -newer "${RESULTS}/.started" -print 2>/dev/null |
    sort | tail -n 1)
  if [[ -n "${current}" ]]; then
    awk -v since="$(date -u -r "${RESULTS}/.started" '+%F %T')" '$1 " " substr($2, 1, 8) >= since' \
      "${current}" >>"${RESULTS}/db/postgresql.log" 2>/dev/null || true
  fi
}

# The standby's server log (run --standby): the whole of it, as the standby is made for the run.
copy_standby_log() {
  [[ -n "${STANDBY}" && -f "${RESULTS}/.started" && -d "${BB_DATA_DIR}/pg-standby/log" ]] || return 0
  find "${BB_DATA_DIR}/pg-standby/log" -name 'postgresql-*.log' -print0 2>/dev/null | sort -z |
    xargs -0 -r cat >"${RESULTS}/db/standby.log" 2>/dev/null || true
}

# After the components stop, whatever happened: database snapshots, server log, status,
# and the report when there is anything to report on.
finish_results() {
  local status="$1"
  if [[ -f "${RESULTS}/.started" ]]; then
    snapshot_database after
    copy_server_log
    copy_standby_log
    record_database_memory
  fi
  conf status "${status}"
  conf finished_utc "$(date -u +%FT%TZ)"
  rm -f "${RESULTS}/.started"
  if find "${RESULTS}" -name 'mix-*.csv' -print -quit | grep -q .; then
    "${BB_ROOT}/postprocess/bb-report" --quiet --table "${RESULTS}" >"${RESULTS}/report.out" 2>"${RESULTS}/report.err" || true
  fi
}
