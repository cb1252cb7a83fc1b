# shellcheck shell=bash
# shellcheck disable=SC2034 # its globals are read by controller/run and the other lib files
# controller/run's database: the embedded cluster started or --db used, loaded for the
# requested size when it is not (bb-loader, or build-db --config). Sourced by controller/run.

# shellcheck source=controller/lib/db-access.sh
source "$(dirname "${BASH_SOURCE[0]}")/db-access.sh"
# shellcheck source=controller/lib/embedded-load.sh
source "$(dirname "${BASH_SOURCE[0]}")/embedded-load.sh"
# shellcheck source=controller/lib/memcap.sh
source "$(dirname "${BASH_SOURCE[0]}")/memcap.sh"

DB_NAME=""
LOADER_PID=""  # the loader while it runs (fail stops it)

# Sets LOADED to "customers scale_factor initial_trade_days t" of the database's complete load,
# "none" when it holds no brokerbench load, or "partial" (DB_LOAD_TEXT says what it holds);
# fails the run, saying why and what to do, when the database cannot be reached or read.
LOADED=""
read_loaded_sizing() {
  if ! db_reachable "${CONNINFO}" "${CONNINFO_SHOWN}"; then
    printf '%s\n' "${DB_ERROR}" >"${RESULTS}/db/connect.err"
    fail "${DB_PROBLEM}" ""
  fi
  db_load_state "${CONNINFO}" "${CONNINFO_SHOWN}" || fail "${DB_PROBLEM}" ""
  LOADED="${DB_LOAD}"
}

prepare_database() {
  local embedded=0
  EMBEDDED_PGDATA=""
  if [[ -z "${CONNINFO}" ]]; then
    embedded=1
    EMBEDDED_PGDATA="${BB_DATA_DIR}/pg/data"
    local -a set_args=()
    local s
    for s in "${SETS[@]}"; do set_args+=(--set "${s}"); done
    stage "starting the embedded PostgreSQL cluster (${BB_DATA_DIR}/pg)${SETS[*]:+ with ${SETS[*]} for this run}"
    if ! "${BB_ROOT}/controller/db" start "${set_args[@]}" >>"${CONTROLLER_LOG}" 2>&1; then
      # pgcluster's list of the settings PostgreSQL refused (controller/lib/cluster-config.sh).
      if [[ ${#SETS[@]} -gt 0 && -s "${BB_DATA_DIR}/pg/set-refused" ]]; then
        cp "${BB_DATA_DIR}/pg/set-refused" "${RESULTS}/db/set-refused.txt"
        fail "run: PostgreSQL refuses --set $(lines_joined "${RESULTS}/db/set-refused.txt")" "${RESULTS}/db/set-refused.txt"
      fi
      fail "the embedded PostgreSQL cluster did not start" "${BB_DATA_DIR}/pg/log and ${CONTROLLER_LOG}"
    fi
    CONNINFO=$("${BB_ROOT}/controller/db" conninfo)
    CONNINFO_SHOWN="${CONNINFO}"
    unset PGPASSWORD  # the cluster's is in its password file (see resolve_conninfo)
    CONNINFO_EMBEDDED=1
  fi
  DB_NAME=$(psql "${CONNINFO}" -XAtc 'select current_database()' 2>/dev/null) || DB_NAME=""
  conf db_name "${DB_NAME}"
  # The server's own version (not psql's): the report, results.json and compare name it.
  local version
  version=$(psql "${CONNINFO}" -XAt -F ' ' -c \
    "select current_setting('server_version'), current_setting('server_version_num')" 2>/dev/null) || version=""
  conf server_version "${version% *}"
  conf server_version_num "${version##* }"
  read_loaded_sizing
  local want="${CUSTOMERS} ${SCALE_FACTOR} ${TRADE_DAYS} t"
  if [[ "${LOADED}" == "${want}" ]]; then
    note "database '${DB_NAME}' holds ${CUSTOMERS} customers, ${TRADE_DAYS} trade days: reusing it (Trade-Cleanup runs first)"
    return
  fi
  if [[ ${embedded} -eq 1 ]]; then
    local replaces=0
    [[ "${LOADED}" == none ]] || replaces=1
    embedded_room_for_load "${CONNINFO}" "${BB_DATA_DIR}/pg" "${CUSTOMERS}" "${TRADE_DAYS}" "${replaces}" ||
      fail "run: ${DISK_PROBLEM}" ""
    "${BB_ROOT}/controller/pgcluster" before-load "${BB_DATA_DIR}/pg" >>"${CONTROLLER_LOG}" 2>&1 ||
      fail "the embedded cluster could not be prepared for the load" "${CONTROLLER_LOG}"
  fi
  local -a sizing=(--customers "${CUSTOMERS}" --scale-factor "${SCALE_FACTOR}" --initial-trade-days "${TRADE_DAYS}")
  local -a load=("${BB_BUILD_DIR}/loader/bb-loader" --db "${CONNINFO}" "${sizing[@]}" --report "${RESULTS}/db/load.json")
  if [[ "${LOADED}" != none ]]; then
    local why="it holds another load (customers, scale factor, trade days, complete: ${LOADED})"
    [[ "${LOADED}" != partial ]] || why="it holds a partial load: ${DB_LOAD_TEXT}"
    local reload="./brokerbench build-db --db '${CONNINFO_SHOWN}' ${sizing[*]} --drop" named="--db"
    [[ -z "${CONFIG}" ]] || { reload+=" --config '${CONFIG}'"; named="[database] in ${CONFIG} or --db"; }
    [[ ${embedded} -eq 1 ]] || fail "run: the database named by ${named} cannot be used: ${why}; reload it with: ${reload}" ""
    note "the embedded database: ${why}; reloading it"
    load+=(--drop)
  fi
  # A run configuration's database is loaded by build-db --config: from the hosts of its
  # [loader] sections at once, or from this machine when it has none.
  [[ -z "${CONFIG}" ]] ||
    load=("${BB_ROOT}/controller/build-db" --config "${CONFIG}" --db "${CONNINFO}" "${sizing[@]}" --log-dir "${RESULTS}/db/load")
  stage "loading ${CUSTOMERS} customers with ${TRADE_DAYS} initial trade days (${load[0]##*/}${CONFIG:+ --config, logs in db/load/}; log: db/loader.log)"
  "${load[@]}" >"${RESULTS}/db/loader.log" 2>&1 &
  LOADER_PID=$!
  tail -n +1 --pid="${LOADER_PID}" -f "${RESULTS}/db/loader.log" 2>/dev/null | sed -u 's/^/    /' &
  local echo_pid=$! rc=0
  wait "${LOADER_PID}" || rc=$?
  LOADER_PID=""
  wait "${echo_pid}" || true
  if [[ ${embedded} -eq 1 ]]; then
    stage "a checkpoint, after which no more WAL is left than min_wal_size"
    "${BB_ROOT}/controller/pgcluster" after-load "${BB_DATA_DIR}/pg" >>"${CONTROLLER_LOG}" 2>&1 ||
      fail "the checkpoint after the load failed" "${CONTROLLER_LOG}"
  fi
  if [[ "${rc}" -ne 0 ]]; then
    # Its own last word ("bb-loader: role x may not create tables ...: GRANT ...") goes first.
    local why
    why=$(grep '^bb-loader: ' "${RESULTS}/db/loader.log" | tail -n 1) || why=""
    fail "the loader failed (exit ${rc})${why:+: ${why#bb-loader: }}" "${RESULTS}/db/loader.log"
  fi
  read_loaded_sizing
  [[ "${LOADED}" == "${want}" ]] || fail "after the load the database holds '${LOADED}', not '${want}'" "${RESULTS}/db/loader.log"
}

# What the run knows of the database's memory (run.conf db_memory): --db-memory's request, "none"
# for the embedded cluster without one (it shares the machine's memory with the kit's
# programs), "unknown" for a server of --db, whose memory the kit cannot see.
# With --db-memory the embedded cluster restarts cold in a memory cgroup (pgcluster start
# --memory, lib/memcap.sh) of that size, or of that share of the loaded database
# (pg_database_size); its memory settings are those pgcluster init gives a machine of that
# memory (memory_settings), but for those the user --set.
cap_database_memory() {
  if [[ -z "${DB_MEMORY}" ]]; then
    conf db_memory "$([[ "${CONNINFO_EMBEDDED}" -eq 1 ]] && echo none || echo unknown)"
    return 0
  fi
  local db_bytes bytes mb
  db_bytes=$(psql "${CONNINFO}" -XAtc 'select pg_database_size(current_database())') ||
    fail "run: --db-memory: cannot read the database's size" ""
  if [[ "${DB_MEMORY}" == *% ]]; then
    bytes=$((db_bytes * $(thousandths "${DB_MEMORY%\%}") / 100000))
    ((bytes >= DB_MEMORY_MIN_MB * 1048576)) ||
      fail "run: --db-memory: ${DB_MEMORY} of the database's $(human_mb $((db_bytes / 1048576))) is $(human_mb $((bytes / 1048576))), less than the ${DB_MEMORY_MIN_MB} MB PostgreSQL needs; ask for a larger share" ""
  else
    bytes=$(memory_bytes "${DB_MEMORY}")
  fi
  mb=$((bytes / 1048576))
  local shared cache maint s
  read -r shared cache maint < <(memory_settings "${mb}")
  local -a args=(--memory "${bytes}") chosen=()
  for s in "shared_buffers=${shared}MB" "effective_cache_size=${cache}MB" "maintenance_work_mem=${maint}MB"; do
    [[ " ${SETS[*],,} " == *" ${s%%=*}="* ]] || chosen+=("${s}")
  done
  for s in "${SETS[@]}" "${chosen[@]}"; do args+=(--set "${s}"); done
  # Only where the kit sized shared_buffers: the user's own setting is the user's to judge.
  if [[ " ${chosen[*]} " == *" shared_buffers="* ]]; then
    s=$(cap_too_small "${mb}" "${shared}" "${DB_WORKERS}") || warn "--db-memory ${DB_MEMORY}: ${s}"
  fi
  stage "restarting the embedded cluster cold in ${DB_MEMORY} = $(human_mb "${mb}") of memory (a cgroup; the database's files out of the page cache first)${chosen[*]:+, with ${chosen[*]}}"
  "${BB_ROOT}/controller/db" start "${args[@]}" >>"${CONTROLLER_LOG}" 2>&1 ||
    fail "the embedded cluster did not start in its memory cgroup" "${CONTROLLER_LOG}"
  local cap="${BB_DATA_DIR}/pg/memory-cap"
  [[ -s "${cap}" ]] || fail "internal: the capped cluster left no ${cap}" ""
  conf db_memory "${DB_MEMORY}"
  conf db_memory_bytes "${bytes}"
  conf db_memory_database_bytes "${db_bytes}"
  conf db_memory_settings "${chosen[*]}"
  conf db_memory_cgroup "$(cap_field "${BB_DATA_DIR}/pg" kind) $(cap_field "${BB_DATA_DIR}/pg" cgroup)"
  conf db_memory_cached_at_start_bytes "$(cap_field "${BB_DATA_DIR}/pg" cached_at_start_bytes)"
  conf db_memory_data_dir_bytes "$(cap_field "${BB_DATA_DIR}/pg" data_bytes)"
}

# At the end of a capped run: the cgroup's peak, usage and out-of-memory kills (run.conf
# db_memory_peak_bytes, db_memory_end_bytes, db_memory_oom_kills; the readme's last line).
record_database_memory() {
  [[ -n "${DB_MEMORY}" && -s "${BB_DATA_DIR}/pg/memory-cap" ]] || return 0
  local figures peak end oom
  figures=$("${BB_ROOT}/controller/pgcluster" memory "${BB_DATA_DIR}/pg" 2>>"${CONTROLLER_LOG}") || return 0
  peak=$(sed -n 's/^peak_bytes=//p' <<<"${figures}")
  end=$(sed -n 's/^usage_bytes=//p' <<<"${figures}")
  oom=$(sed -n 's/^oom_kills=//p' <<<"${figures}")
  conf db_memory_peak_bytes "${peak}"
  conf db_memory_end_bytes "${end}"
  conf db_memory_oom_kills "${oom}"
  printf 'db memory:  the cgroup'"'"'s peak %s, %s at the end, %s out-of-memory kills\n' \
    "$([[ -n "${peak}" ]] && human_mb $((peak / 1048576)) || echo unknown)" \
    "$([[ -n "${end}" ]] && human_mb $((end / 1048576)) || echo unknown)" "${oom:-unknown}" >>"${RESULTS}/readme.txt"
}

# run --standby sync|async: a streaming standby of the embedded cluster, made fresh for the run
# in BB_DATA_DIR/pg-standby (controller/standby: pg_basebackup, its own port) with the
# settings of --set but synchronous_standby_names. Synchronous: the primary restarts with
# synchronous_standby_names naming it (a --set of the run's, so no file of the cluster
# changes), and a commit returns once the standby has flushed its WAL (synchronous_commit on).
# The Brokerage House, the tools and the snapshots reach the database through libpq's
# multi-host list, the primary first, with target_session_attrs=read-write: after a failover
# (durability) each new connection goes to whichever of the two accepts writes, with no switch
# of the kit's in the request path: what an application of the user's would do. The standby
# stays up after the run (durability's recount reads it); the next run without --standby
# deletes it. Without --standby, a standby an earlier run left is deleted (it would share the
# machine with the measurement).
add_standby() {
  local dir="${BB_DATA_DIR}/pg-standby"
  if [[ -z "${STANDBY}" ]]; then
    [[ "${CONNINFO_EMBEDDED}" -eq 1 && -d "${dir}" ]] || return 0
    note "deleting the standby an earlier run left in ${dir}"
    "${BB_ROOT}/controller/pgcluster" destroy "${dir}" >>"${CONTROLLER_LOG}" 2>&1 ||
      fail "cannot delete the old standby in ${dir}" "${CONTROLLER_LOG}"
    return 0
  fi
  local s name
  local -a standby_sets=() primary_sets=()
  for s in "${SETS[@]}"; do [[ "${s,,}" == synchronous_standby_names=* ]] || standby_sets+=(--set "${s}"); done
  stage "making a streaming standby (${STANDBY}) of the embedded cluster in ${dir} (pg_basebackup)"
  "${BB_ROOT}/controller/standby" make "${BB_DATA_DIR}/pg" "${dir}" "${standby_sets[@]}" >>"${CONTROLLER_LOG}" 2>&1 ||
    fail "the standby could not be made" "${CONTROLLER_LOG} and ${dir}/log"
  if [[ "${STANDBY}" == sync ]]; then
    name=$("${BB_ROOT}/controller/standby" name)
    SETS+=("synchronous_standby_names=${name}")
    for s in "${SETS[@]}"; do primary_sets+=(--set "${s}"); done
    # With --db-memory, cap_database_memory restarts it with SETS.
    if [[ -z "${DB_MEMORY}" ]]; then
      stage "restarting the embedded cluster with synchronous_standby_names=${name}"
      "${BB_ROOT}/controller/db" start "${primary_sets[@]}" >>"${CONTROLLER_LOG}" 2>&1 ||
        fail "the embedded cluster did not start again with its synchronous standby" "${CONTROLLER_LOG}"
    fi
  fi
  local standby host port
  standby=$("${BB_ROOT}/controller/pgcluster" conninfo "${dir}")
  host=${standby#*host=}; host=${host%% *}
  port=${standby#*port=}; port=${port%% *}
  CONNINFO=$(sed -e "s|host=\([^ ]*\)|host=\1,${host}|" -e "s|port=\([^ ]*\)|port=\1,${port}|" <<<"${CONNINFO}")
  CONNINFO+=" target_session_attrs=read-write"
  CONNINFO_SHOWN="${CONNINFO}"
  conf standby "${STANDBY}"
  conf standby_dir "${dir}"
  conf standby_port "${port}"
}
