# shellcheck shell=bash
# shellcheck disable=SC2034 # its globals are read by controller/run and the other lib files
# controller/run's hosts: this machine alone, or those of a run configuration, and the
# checks of the remote ones before anything starts. Sourced by controller/run.

declare -a HOSTS=()   # every distinct host of the run ("local" = this machine)
declare -a CLOCK_NOTES=()
CONFIG=""             # the run configuration (--config), if any

# Single-host defaults in the configuration's terms, unless a configuration was read. On one
# host the programs talk over Unix-domain sockets in a private directory (far cheaper for the
# kernel than loopback TCP: BENCHMARKS.md, "bench overhead"), unless ports were asked for.
SOCKET_DIR=""
DB_HOST=""  # the database's host where known (its waits are sampled there, and profiled)
plan_hosts() {
  if [[ -z "${CONFIG}" ]]; then
    CFG_BH_LISTEN="127.0.0.1:${BH_PORT}"
    CFG_MEE_LISTEN="127.0.0.1:${MEE_PORT}"
    if [[ "${BH_PORT}" == 0 && "${MEE_PORT}" == 0 ]]; then
      SOCKET_DIR=$(mktemp -d /tmp/bb-run.XXXXXX) || die "cannot create a directory for the run's sockets in /tmp"
      CFG_BH_LISTEN="unix:${SOCKET_DIR}/bh.sock"
      CFG_MEE_LISTEN="unix:${SOCKET_DIR}/mee.sock"
    fi
    CFG_CE_HOSTS=(local)
    CFG_CE_USERS=("${USERS}")
  fi
  DB_HOST="${CFG_DB_HOST:-local}"
  local h
  local -A seen=()
  for h in "${CFG_DB_HOST}" "${CFG_BH_HOST}" "${CFG_MEE_HOST}" "${CFG_CE_HOSTS[@]}"; do
    [[ -n "${h}" && -z "${seen[${h}]:-}" ]] || continue
    seen[${h}]=1
    HOSTS+=("${h}")
  done
}

# Remote hosts: reachable, the same kit, programs built; clocks compared. Nothing has been
# started yet, so a host that fails here fails the run within seconds and starts nothing.
check_remote_hosts() {
  local -a remote=()
  local h
  for h in "${HOSTS[@]}"; do is_local "${h}" || remote+=("${h}"); done
  [[ ${#remote[@]} -gt 0 ]] || return 0
  SSH_CONTROL_DIR=$(mktemp -d /tmp/bb-ssh.XXXXXX)
  SSH_EXTRA=("${CFG_SSH_OPTIONS[@]}")
  stage "checking the hosts: ${remote[*]}"
  local problems
  if ! problems=$(check_hosts "${CFG_KIT}" "${CFG_BUILD}" "$("${BB_ROOT}/controller/version")" "${remote[@]}"); then
    printf '%s\n' "${problems}" | sed 's/^/    /' | tee -a "${CONTROLLER_LOG}"
    fail "$(head -n 1 <<<"${problems}")" "${CONTROLLER_LOG}"
  fi
  local offset
  for h in "${remote[@]}"; do
    offset=$(clock_offset "${h}") || fail "host ${h}: the clock check failed" "${CONTROLLER_LOG}"
    note "host ${h}: clock ${offset% *} ms from ours (+- ${offset#* } ms)"
    CLOCK_NOTES+=("${h} ${offset% *} ms from the controller's (+- ${offset#* } ms)")
    # |offset| - uncertainty over 50 ms, in tenths of a millisecond (clock_offset's one decimal).
    local off_tenths="${offset% *}" unc_tenths="${offset#* }"
    off_tenths="${off_tenths#-}" off_tenths="${off_tenths/./}" unc_tenths="${unc_tenths/./}"
    if ((10#${off_tenths} - 10#${unc_tenths} > 500)); then
      warn "host ${h}: its clock is ${offset% *} ms from this one's (over 50 ms): response times are fine (each is measured on one host) but the merged timeline is skewed; synchronise the clocks (chrony, ntp)"
    fi
  done
}
