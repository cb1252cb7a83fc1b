# shellcheck shell=bash
# shellcheck disable=SC2153 # NETNS_* are set by netns.sh, which sources this file
# netns.sh's teardown (netns_teardown) and the process checks it and netns_start_sshd use:
# sourced by netns.sh, never alone (it removes what NETNS_DIR/created lists).

# True when process PID exists and is not a zombie.
_netns_alive() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat="${stat##*) }"
  [[ "${stat%% *}" != Z ]]
}

# Microseconds since the epoch, without a fork.
_netns_now_us() { printf '%s\n' "${EPOCHREALTIME/./}"; }

# Waits up to TENTHS tenths of a second for every PID to be gone; true when they are.
_netns_wait_gone() {
  local deadline pid alive
  deadline=$(($(_netns_now_us) + $1 * 100000))
  shift
  while true; do
    alive=0
    for pid in "$@"; do
      if _netns_alive "${pid}"; then
        alive=1
        break
      fi
    done
    [[ ${alive} -eq 1 ]] || return 0
    [[ $(_netns_now_us) -lt ${deadline} ]] || return 1
    sleep 0.1
  done
}

# The command line of process PID, arguments separated by spaces; false when it is gone.
_netns_cmdline() {
  local cmdline
  cmdline=$(tr '\0' ' ' 2>/dev/null <"/proc/$1/cmdline") || return 1
  printf '%s\n' "${cmdline% }"
}

# TERM, then after 3 s KILL, one of our sshds, after checking that PID still runs our CONFIG
# (pids get reused). Reaps it when it is our child.
_netns_stop_sshd() {
  local pid="$1" name="$2" config="$3" cmdline
  cmdline=$(_netns_cmdline "${pid}") || return 0
  [[ "${cmdline}" == *" ${config}"* ]] || return 0
  kill -TERM "${pid}" 2>/dev/null || true
  if ! _netns_wait_gone 30 "${pid}"; then
    _netns_err "host ${name}: sshd (pid ${pid}) ignored TERM for 3 s; killing it"
    kill -KILL "${pid}" 2>/dev/null || true
    _netns_wait_gone 10 "${pid}" || _netns_err "host ${name}: sshd (pid ${pid}) survives KILL"
  fi
  if ! _netns_alive "${pid}"; then
    wait "${pid}" 2>/dev/null || true
  fi
}

# Reports and kills what still runs in namespace NS (host NAME): processes a test started
# there, and the sshd sessions that carried them. TERM, then after 2 s KILL. False when some
# survive.
_netns_sweep() {
  local ns="$1" name="$2" pid
  local -a pids
  mapfile -t pids < <(ip netns pids "${ns}" 2>/dev/null)
  [[ ${#pids[@]} -gt 0 ]] || return 0
  for pid in "${pids[@]}"; do
    _netns_err "host ${name} (namespace ${ns}): still running at teardown, killing pid ${pid}: $(_netns_cmdline "${pid}")"
  done
  kill -TERM "${pids[@]}" 2>/dev/null || true
  _netns_wait_gone 20 "${pids[@]}" && return 0
  mapfile -t pids < <(ip netns pids "${ns}" 2>/dev/null)
  [[ ${#pids[@]} -gt 0 ]] || return 0
  kill -KILL "${pids[@]}" 2>/dev/null || true
  _netns_wait_gone 10 "${pids[@]}" && return 0
  _netns_err "host ${name} (namespace ${ns}): pids ${pids[*]} survive KILL"
  return 1
}

# The entries of KIND in the state file STATE, in the order they were made, one a line
# without the kind.
_netns_entries() {
  local kind rest
  while read -r kind rest; do
    [[ "${kind}" != "$1" ]] || printf '%s\n' "${rest}"
  done <"$2"
}

# Undoes everything netns_setup and netns_start_sshd created, as listed in the state file: our
# sshds, whatever still runs in our namespaces, the veth pairs, the bridge, the namespaces, the
# temporary directory. Idempotent, and safe after a partial setup (an EXIT trap). Quiet unless
# something was left running (reported on stderr, then killed); returns 1 only when something
# survives or cannot be removed.
netns_teardown() {
  # Every step tolerates what is already gone, and no status may stop it: this runs in EXIT
  # traps under set -e.
  local dir="${NETNS_DIR:-}" state rc=0 kind a b c
  if [[ -z "${dir}" || ! -f "${dir}/created" ]]; then
    if [[ "${dir}" == /tmp/bbnetns.* ]]; then
      rm -rf -- "${dir}"
    fi
    _netns_forget
    return 0
  fi
  state="${dir}/created"
  while read -r a b c; do
    _netns_stop_sshd "${a}" "${b}" "${c}"
  done < <(_netns_entries sshd "${state}")
  while read -r a b _; do
    _netns_sweep "${a}" "${b}" || rc=1
  done < <(_netns_entries ns "${state}")
  # Deleting one end of a veth pair deletes both; then the bridge, then the namespaces.
  for kind in link bridge; do
    while read -r a _; do
      ip link del "${a}" 2>/dev/null || true
    done < <(_netns_entries "${kind}" "${state}")
  done
  while read -r a _; do
    ip netns del "${a}" 2>/dev/null || true
  done < <(_netns_entries ns "${state}")
  while read -r kind a _; do
    case "${kind}" in
      link | bridge)
        if ip link show "${a}" >/dev/null 2>&1; then
          _netns_err "cannot remove the interface ${a}"
          rc=1
        fi
        ;;
      ns)
        if [[ -e "/run/netns/${a}" ]]; then
          _netns_err "cannot remove the namespace ${a}"
          rc=1
        fi
        ;;
    esac
  done <"${state}"
  rm -rf -- "${dir}"
  _netns_forget
  return "${rc}"
}

# Clears the variables of this run.
# shellcheck disable=SC2034  # the variables are for the caller
_netns_forget() {
  NETNS_DIR=""
  NETNS_SSH_CONFIG=""
  NETNS_HOSTS=()
  NETNS_NET=""
  NETNS_SUBNET=""
  NETNS_BRIDGE_ADDR=""
  declare -gA NETNS_ADDR=() NETNS_NS=() NETNS_SSHD_PID=()
}
