# shellcheck shell=bash
# shellcheck disable=SC2034 # its globals are read by controller/run and the other lib files
# controller/run's components: each runs under controller/remote-exec on its host, in a
# directory of its own: on this machine its place in the results directory, elsewhere a
# directory under the work directory that comes home at the end. Watched and stopped by pid,
# never anything else. Sourced by controller/run; needs lib/common.sh, lib/hosts.sh and
# lib/component-status.sh, and from the run: RESULTS, CONTROLLER_LOG, RUN_ID, CFG_WORK and
# fail MESSAGE LOG.
#
# The table: component I is C_NAME[I] (for messages), on C_HOST[I], in C_DIR[I] there, brought
# home to C_LOCAL[I], its log C_LOG[I] (here), its state C_STATE[I]: running, exited:RC,
# vanished or stopped:RC. Functions that find something out leave it in a global named after
# it (COMP, PORT, STOP_RC): they change the table too, so they cannot run in a subshell.

declare -a C_NAME=() C_HOST=() C_DIR=() C_LOCAL=() C_LOG=() C_STATE=()
COMP=0     # the index start_component gave the component it started
PORT=""    # the port wait_for_port read
STOP_RC=0  # the exit status stop_component saw

# Starts a component: NAME, HOST, KIND (its folder in the results directory: bh, mee, ce,
# sys), LOG (its log's file name), then the command. Sets COMP to its index.
start_component() {
  local name="$1" host="$2" kind="$3" log="$4" label local_dir dir pid
  shift 4
  label=$(host_label "${host}")
  local_dir="${RESULTS}/${kind}/${label}"
  [[ ! -e "${local_dir}/remote-exec.pid" ]] || local_dir="${local_dir}.${#C_NAME[@]}"
  if is_local "${host}"; then dir="${local_dir}"; else dir="${CFG_WORK}/${RUN_ID}/${kind}.${#C_NAME[@]}"; fi
  COMP=${#C_NAME[@]}
  C_NAME+=("${name}"); C_HOST+=("${host}"); C_DIR+=("${dir}"); C_LOCAL+=("${local_dir}")
  C_LOG+=("${local_dir}/${log}"); C_STATE+=(running)
  mkdir -p "${local_dir}"
  printf '%s starting %s on %s in %s: %s\n' "$(date -u +%FT%TZ)" "${name}" "${label}" "${dir}" "$(redact_args "$@")" >>"${CONTROLLER_LOG}"
  # The database password (hide_password) on stdin for a component given the database (--db:
  # the Brokerage House, the database host's monitor): on another host it does not see our
  # environment.
  local -a secret=()
  [[ " $* " != *" --db "* || -z "${PGPASSWORD:-}" ]] || secret=(--pgpassword-stdin)
  pid=$(printf '%s\n' "${PGPASSWORD:-}" | on_host "${host}" "$(kit_on "${host}")/controller/remote-exec" \
    start "${dir}" "${log}" "${secret[@]}" -- "$@" 2>&1) ||
    fail "the ${name} did not start on ${label}: ${pid}" "${CONTROLLER_LOG}"
  printf '%s started %s (pid %s on %s)\n' "$(date -u +%FT%TZ)" "${name}" "${pid}" "${label}" >>"${CONTROLLER_LOG}"
}

# Brings a component's directory home (remote hosts) and prints where its log is.
component_log() {
  fetch_dir "${C_HOST[$1]}" "${C_DIR[$1]}" "${C_LOCAL[$1]}" 2>/dev/null || true
  printf '%s\n' "${C_LOG[$1]}"
}

# end_record_line I: what customer emulator I's end-of-run record (postprocess/MIXLOG.md; the
# mix log's name with .end) says, on one line for the screen: brought home first; nothing when
# it wrote none. Its log's lines are for people and never read here.
end_record_line() {
  local key value file
  local -A rec=()
  fetch_dir "${C_HOST[$1]}" "${C_DIR[$1]}" "${C_LOCAL[$1]}" 2>/dev/null || true
  for file in "${C_LOCAL[$1]}"/mix-ce-*.end; do
    [[ -f "${file}" ]] || continue
    while IFS='=' read -r key value; do
      [[ -z "${key}" || "${key}" == \#* ]] || rec["${key}"]="${value}"
    done <"${file}"
    printf 'stopped (%s): sent %s, rows %s, replies %s, errors %s, invalid %s; users started %s of %s, measured %s s, %s user transactions in it; dispatch lateness p50 %s us, p99 %s us\n' \
      "${rec[stop]:-?}" "${rec[sent]:-?}" "${rec[rows]:-?}" "${rec[replies]:-?}" "${rec[errors]:-?}" \
      "${rec[invalid]:-?}" "${rec[users_started]:-?}" "${rec[users]:-?}" "${rec[measured_s]:-?}" \
      "${rec[measured_transactions]:-?}" "${rec[dispatch_lateness_p50_us]:-?}" \
      "${rec[dispatch_lateness_p99_us]:-?}"
  done
}

# Updates C_STATE of every running component: running, or exited:RC, or vanished. This host's
# components are asked directly (no process started: this runs once a second), the others with
# one remote-exec call per host. A component that is ending (it has ended, its supervisor has
# yet to write its status) is asked again every 50 ms, for up to 2 s, so that what the run
# sees is every component's state at one moment: when components end together the run names
# the first started, on which the later ones depend (a customer emulator ends when it loses
# the Brokerage House), not the one whose supervisor happened to write its status first.
poll_components() {
  local n
  for ((n = 0; n < 40; n++)); do
    poll_components_once
    ((ENDING > 0)) || return 0
    nap 0.05
  done
}

ENDING=0 # how many components the last poll found ending
poll_components_once() {
  local host i dir state rc
  local -A by_host=() index=()
  ENDING=0
  for i in "${!C_NAME[@]}"; do
    [[ "${C_STATE[i]}" == running ]] || continue
    if is_local "${C_HOST[i]}"; then
      component_state "${C_DIR[i]}"
      set_component_state "${i}" "${COMPONENT_STATE}" "${COMPONENT_DETAIL}"
    else
      by_host["${C_HOST[i]}"]+="${C_DIR[i]}"$'\n'
      index["${C_DIR[i]}"]=${i}
    fi
  done
  for host in "${!by_host[@]}"; do
    local -a dirs=()
    mapfile -t dirs < <(printf '%s' "${by_host[${host}]}")
    while read -r dir state rc; do
      i="${index[${dir}]:-}"
      [[ -z "${i}" ]] || set_component_state "${i}" "${state}" "${rc}"
    done < <(on_host "${host}" "$(kit_on "${host}")/controller/remote-exec" status "${dirs[@]}" 2>/dev/null || true)
  done
}

# set_component_state I STATE DETAIL: C_STATE[I] from component_state's answer; counts ENDING.
set_component_state() {
  case "$2" in
    running) ;;
    ending) ENDING=$((ENDING + 1)) ;;
    exited) C_STATE[$1]="exited:$3" ;;
    *) C_STATE[$1]=vanished ;;
  esac
}

# Stops component I (SIGTERM, up to SECONDS, then SIGKILL); sets STOP_RC to its exit status.
stop_component() {
  local i="$1" seconds="$2"
  STOP_RC=$(on_host "${C_HOST[i]}" "$(kit_on "${C_HOST[i]}")/controller/remote-exec" stop "${C_DIR[i]}" "${seconds}" 2>>"${CONTROLLER_LOG}") ||
    STOP_RC=255
  [[ "${STOP_RC}" =~ ^[0-9]+$ ]] || STOP_RC=255
  C_STATE[i]="stopped:${STOP_RC}"
  printf '%s stopped %s: exit %s\n' "$(date -u +%FT%TZ)" "${C_NAME[i]}" "${STOP_RC}" >>"${CONTROLLER_LOG}"
}

# Stops everything still running, newest first, and brings every directory home.
stop_all() {
  local i
  for ((i = ${#C_NAME[@]} - 1; i >= 0; i--)); do
    [[ "${C_STATE[i]}" != running ]] || stop_component "${i}" 30
  done
  for i in "${!C_NAME[@]}"; do
    fetch_dir "${C_HOST[i]}" "${C_DIR[i]}" "${C_LOCAL[i]}" 2>>"${CONTROLLER_LOG}" ||
      note "could not bring ${C_DIR[i]} home from $(host_label "${C_HOST[i]}")"
  done
}

# Waits up to 30 s for component I to listen on the Unix-domain socket PATH.
wait_for_socket() {
  local i="$1" path="$2" n
  for ((n = 0; n < 150; n++)); do
    [[ ! -S "${path}" ]] || return 0
    poll_components
    [[ "${C_STATE[i]}" == running ]] || fail "the ${C_NAME[i]} exited while starting" "$(component_log "${i}")"
    sleep 0.2
  done
  fail "the ${C_NAME[i]} did not listen on ${path} within 30 s" "$(component_log "${i}")"
}

# Waits up to 30 s for component I to write its port to FILE (in its directory); sets PORT.
wait_for_port() {
  local i="$1" file="$2" n
  for ((n = 0; n < 150; n++)); do
    PORT=$(on_host "${C_HOST[i]}" cat "${C_DIR[i]}/${file}" 2>/dev/null || true)
    [[ ! "${PORT}" =~ ^[0-9]+$ ]] || return 0
    poll_components
    [[ "${C_STATE[i]}" == running ]] || fail "the ${C_NAME[i]} exited while starting" "$(component_log "${i}")"
    sleep 0.2
  done
  fail "the ${C_NAME[i]} did not listen within 30 s" "$(component_log "${i}")"
}

# The emulators on this machine serve live metrics (README, "Live metrics") on a loopback port
# the system picks, written to metrics.port in their directory; one on another host serves none
# (a loopback endpoint there would be out of our reach).
METRICS=()  # "mee=URL", "ce1=URL", ...
metrics_args() {
  ! is_local "$1" || printf '%s\n' --metrics-listen 127.0.0.1:0 --metrics-port-file metrics.port
}

# Waits for component I's metrics port (if it runs here) and adds "LABEL=URL" to METRICS.
add_metrics() {
  local i="$1" label="$2"
  is_local "${C_HOST[i]}" || return 0
  wait_for_port "${i}" metrics.port
  METRICS+=("${label}=http://127.0.0.1:${PORT}/metrics")
}
