# shellcheck shell=bash
# shellcheck disable=SC2153 # PROFILE and the run settings are set by lib/run-options.sh
# controller/run's view of the measurement interval. The first customer emulator says where it
# is by its mix log's rows and markers (postprocess/MIXLOG.md), never by its log's wording:
# its Trade-Cleanup row (TC) ends the start, its START marker begins the measurement interval,
# and its exit ends it. At START pg_stat_statements is reset and read (db/mi-start/) and, with
# --profile, the profiler starts on the database's host for the interval's length; at the end
# it is read again (db/mi-end/), so that "Top statements" covers the interval. Sourced by
# controller/run; needs lib/components.sh and lib/results.sh.

CE_PHASE=starting  # the first customer emulator: starting, ramp-up, measuring, over
MI_PHASE=before    # the run's snapshots: before, measuring, over
PROFILER=""        # the profiler's component index, once started

# mix_has I CODE: customer emulator I's mix log has a row or marker CODE (grep stops at the
# first one; on another host over ssh).
mix_has() {
  # shellcheck disable=SC2016 # expanded by the shell on the emulator's host
  on_host "${C_HOST[$1]}" sh -c 'grep -qsE "^[0-9]+,$1," "$2"/mix-ce-*.csv' sh "$2" "${C_DIR[$1]}" 2>/dev/null
}

# ce_track I: advances CE_PHASE by customer emulator I's mix log and state (poll_components'),
# looking only for the next marker: called once a second.
ce_track() {
  local i="$1"
  case "${CE_PHASE}" in
    starting) mix_has "${i}" TC && CE_PHASE=ramp-up ;;
    ramp-up) mix_has "${i}" START && CE_PHASE=measuring ;;
  esac
  [[ "${C_STATE[i]}" == running ]] || CE_PHASE=over
}

# Waits (up to 10 minutes) until customer emulator I has finished Trade-Cleanup.
wait_for_trade_cleanup() {
  local i="$1" n
  note "waiting for Trade-Cleanup before starting the other emulators"
  for ((n = 0; n < 600; n++)); do
    ce_track "${i}"
    [[ "${CE_PHASE}" == starting ]] || return 0
    poll_components
    [[ "${C_STATE[i]}" == running ]] || fail "the ${C_NAME[i]} exited during Trade-Cleanup" "$(component_log "${i}")"
    sleep 1
  done
  fail "Trade-Cleanup did not finish within 10 minutes" "$(component_log "${i}")"
}

# mi_hooks: the snapshots (and the profiler) as CE_PHASE reaches START and the end.
mi_hooks() {
  case "${MI_PHASE}:${CE_PHASE}" in
    before:measuring)
      [[ ${PROGRESS_TTY} -eq 0 ]] || printf '\r\033[K'  # the progress line makes way
      MI_PHASE=measuring
      snapshot_database mi-start
      [[ ${PROFILE} -eq 0 || -z "${DB_HOST}" ]] || start_profiler ;;
    measuring:over)
      [[ ${PROGRESS_TTY} -eq 0 ]] || printf '\r\033[K'
      mi_over ;;
  esac
}

mi_over() {
  MI_PHASE=over
  snapshot_database mi-end
}

start_profiler() {
  note "profiling $(host_label "${DB_HOST}") for the measurement interval (${DURATION} s; profile/)"
  start_component "profiler on $(host_label "${DB_HOST}")" "${DB_HOST}" profile profile.log \
    "$(kit_on "${DB_HOST}")/controller/profile" . --seconds "${DURATION}"
  PROFILER=${COMP}
}

# Waits for the profiler to fold its stacks and draw them (it ends by itself, up to 10 minutes
# after the others), then says what it did. It never fails the run.
finish_profiler() {
  [[ -n "${PROFILER}" ]] || return 0
  local n
  for ((n = 0; n < 600; n++)); do
    poll_components
    [[ "${C_STATE[PROFILER]}" == running ]] || break
    ((n > 0)) || note "waiting for the profiler to draw its flame graph"
    sleep 1
  done
  stop_component "${PROFILER}" 10
  fetch_dir "${C_HOST[PROFILER]}" "${C_DIR[PROFILER]}" "${C_LOCAL[PROFILER]}" 2>>"${CONTROLLER_LOG}" || true
  local said
  said=$(head -n 1 "${C_LOCAL[PROFILER]}/profile.txt" 2>/dev/null) ||
    said="not profiled: the profiler stopped with status ${STOP_RC} and said nothing (see its profile.log)"
  note "profile (profile/$(host_label "${C_HOST[PROFILER]}")/): ${said}"
}
