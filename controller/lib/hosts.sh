# shellcheck shell=bash
# Running commands on the hosts of a run: this machine ("local") directly, any other over ssh
# (non-interactive, with a connection shared per host). Sourced by controller/run and
# controller/build-db.

# ssh options: non-interactive, fail fast, one master connection per host for the whole run.
# SSH_EXTRA holds the configuration's own options (e.g. -F FILE).
declare -a SSH_EXTRA=()
SSH_CONTROL_DIR=""

ssh_options() {
  printf '%s\n' -o BatchMode=yes -o ConnectTimeout=5 -o ServerAliveInterval=5 \
    -o ServerAliveCountMax=3 -o ControlMaster=auto -o "ControlPath=${SSH_CONTROL_DIR}/%C" \
    -o ControlPersist=300 "${SSH_EXTRA[@]}"
}

is_local() { [[ "$1" == local ]]; }

# Where the kit and its build are on HOST: here, or the run configuration's [ssh] kit and
# build_dir (CFG_KIT, CFG_BUILD from controller/lib/runconfig.sh).
kit_on() { if is_local "$1"; then printf '%s\n' "${BB_ROOT}"; else printf '%s\n' "${CFG_KIT}"; fi; }
bin_on() { if is_local "$1"; then printf '%s\n' "${BB_BUILD_DIR}"; else printf '%s\n' "${CFG_BUILD}"; fi; }

# Runs a command on HOST: "local" runs it here; any other name is an ssh destination, and
# the command's words are quoted for the remote shell.
on_host() {
  local host="$1"
  shift
  if is_local "${host}"; then
    "$@"
  else
    local -a opts
    mapfile -t opts < <(ssh_options)
    # shellcheck disable=SC2029 # quoted for the remote shell on purpose
    # "--": whatever HOST is, ssh takes it as the destination, never as an option.
    ssh "${opts[@]}" -- "${host}" "$(printf '%q ' "$@")"
  fi
}

# The name a host's files go under in the results directory.
host_label() {
  if is_local "$1"; then hostname -s 2>/dev/null || echo localhost; else printf '%s\n' "$1"; fi
}

# Closes the shared ssh connections (the master processes ssh started for us).
close_ssh() {
  [[ -n "${SSH_CONTROL_DIR}" && -d "${SSH_CONTROL_DIR}" ]] || return 0
  local host opts
  mapfile -t opts < <(ssh_options)
  for host in "$@"; do
    is_local "${host}" || ssh "${opts[@]}" -O exit -- "${host}" >/dev/null 2>&1 || true
  done
  rm -rf "${SSH_CONTROL_DIR}"
}

# The programs check_hosts wants built on every host (paths under the build directory, e.g.
# loader/bb-loader); empty: all four programs of a run.
declare -a CHECK_HOST_PROGRAMS=()

# Checks every remote HOST at once: reachable over ssh within seconds, the kit at KIT with the
# same version as ours (WANT) and its programs built in BUILD. Prints one line per problem,
# naming the host; returns 1 if there was any.
check_hosts() {
  local kit="$1" build="$2" want="$3" host tmp problems p
  shift 3
  local -a check=(--check-build "${build}")
  for p in "${CHECK_HOST_PROGRAMS[@]}"; do check+=(--program "${p}"); done
  tmp=$(mktemp -d)
  for host in "$@"; do
    (
      rc=0
      out=$(on_host "${host}" "${kit}/brokerbench" version "${check[@]}" 2>&1) || rc=$?
      if [[ ${rc} -eq 255 ]]; then
        printf 'host %s: cannot reach it over ssh: %s\n' "${host}" "$(tail -n 1 <<<"${out}")"
      elif [[ ${rc} -eq 126 || ${rc} -eq 127 ]]; then
        printf 'host %s: no brokerbench kit at %s\n' "${host}" "${kit}"
      elif [[ ${rc} -ne 0 ]]; then
        printf 'host %s: %s\n' "${host}" "$(tail -n 1 <<<"${out}")"
      elif [[ "${out}" != "${want}" ]]; then
        printf "host %s: the kit there is '%s', here '%s' (the same commit, without local changes, is needed)\n" \
          "${host}" "${out}" "${want}"
      fi
    ) >"${tmp}/${host//\//_}" &
  done
  wait
  problems=$(cat "${tmp}"/* 2>/dev/null || true)
  rm -rf "${tmp}"
  [[ -z "${problems}" ]] || { printf '%s\n' "${problems}"; return 1; }
}

# Prints HOST's clock minus ours in milliseconds, and the uncertainty (half the round trip),
# each with one decimal ("-12.3 0.4").
clock_offset() {
  local host="$1" t0 t1 remote
  t0="${EPOCHREALTIME/[.,]/}"
  remote=$(on_host "${host}" date +%s%6N) || return 1
  t1="${EPOCHREALTIME/[.,]/}"
  [[ "${remote}" =~ ^[0-9]+$ ]] || return 1
  printf '%s %s\n' "$(us_as_ms "$((remote - (t0 + t1) / 2))")" "$(us_as_ms "$(((t1 - t0) / 2))")"
}

# Microseconds as milliseconds with one decimal, rounded half away from zero: -1250 -> -1.3.
us_as_ms() {
  local us="$1" sign=""
  ((us >= 0)) || { sign=-; us=$((-us)); }
  local tenths=$(((us + 50) / 100))
  printf '%s%s.%s\n' "${sign}" "$((tenths / 10))" "$((tenths % 10))"
}

# Copies the directory RDIR on HOST into LOCAL (a no-op for this machine, whose components
# write into the results directory directly).
fetch_dir() {
  local host="$1" rdir="$2" local_dir="$3"
  is_local "${host}" && return 0
  mkdir -p "${local_dir}"
  on_host "${host}" tar -C "${rdir}" -cf - . | tar -C "${local_dir}" -xf -
}
