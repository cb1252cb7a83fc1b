# shellcheck shell=bash
# Several emulated hosts on one machine, for tests of multi-machine runs (issue 9): one Linux
# network namespace per host, all on one bridge in the root namespace, each host with its own
# address and, on request, its own sshd, so `ssh -F "${NETNS_SSH_CONFIG}" NAME cmd` runs cmd
# "on" that host. Sourced, never run; nothing happens until a function is called.
#
#   reason=$(netns_check) || skip "${reason}"   # root, ip, netns, bridge, veth, sshd?
#   trap netns_teardown EXIT                     # before setup: it also undoes a partial one
#   netns_setup a b c                            # NETNS_ADDR[a], netns_addr a, netns_exec a cmd
#   netns_start_sshd a b c                       # NETNS_SSH_CONFIG; ssh -F ... a cmd
#   netns_teardown                               # idempotent
#
# Names: this run's tag is bbt<pid of the sourcing shell>; namespaces are <tag>-NAME, the
# bridge <tag>br, the root-side veth ends <tag>v<index> (at most 14 characters, under the
# 15-character limit of interface names); inside each namespace the other end is eth0.
# Addresses: a free /24 in ${BB_NETNS_NET:-10.231}.X.0/24, X starting at pid % 256 (or
# BB_NETNS_OCTET) and moving on while `ip route`/`ip addr` show the /24 (or a route that covers
# it) in use. The pick and the bridge address are made under an flock, so concurrent runs never
# take the same /24. The bridge has .1 (NETNS_BRIDGE_ADDR: the root namespace as the hosts see
# it), host i (from 0, in the order given) has .(i + 2).
# Everything created is appended, once created, to a state file in a private temporary
# directory (NETNS_DIR), which also holds the generated keys, configs and sshd logs;
# netns_teardown removes exactly what that file lists. Processes still running inside our
# namespaces at teardown (started by a test through ssh) are reported on stderr and killed.
#
# Setup functions set variables, so call them in the test's own shell (not inside $( )). They
# return 1 with a message on stderr ("netns: ..."); they never exit. Needs root.
# BB_NETNS_SSHD overrides the sshd binary (default /usr/sbin/sshd).
#
# Hosts reach each other through the bridge, so on a machine that loads br_netfilter with
# net.bridge.bridge-nf-call-iptables=1 and drops in iptables' FORWARD chain (as Docker sets
# it up), traffic between two hosts is dropped; ssh from the root namespace still works.

# The sshd binary; Debian's openssh-server puts it here.
NETNS_SSHD_BIN="${BB_NETNS_SSHD:-/usr/sbin/sshd}"

_netns_err() { printf 'netns: %s\n' "$*" >&2; }

# Records one created object in the state file: "bridge IF", "ns NS NAME", "link IF",
# "sshd PID NAME CONFIG".
_netns_record() { printf '%s\n' "$*" >>"${NETNS_DIR}/created"; }

# Prints why network namespaces with sshd cannot be used here and returns 1; returns 0 when
# they can. Probes by creating (and removing at once) a namespace, a bridge and a veth pair.
netns_check() {
  local probe="bbt$$k" out cmd
  if [[ "$(id -u)" -ne 0 ]]; then
    printf 'network namespaces need root (running as uid %s)\n' "$(id -u)"
    return 1
  fi
  for cmd in ip ssh ssh-keygen flock timeout; do
    if ! command -v "${cmd}" >/dev/null; then
      printf "no '%s' command (packages iproute2, openssh-client, util-linux, coreutils)\n" "${cmd}"
      return 1
    fi
  done
  if [[ ! -x "${NETNS_SSHD_BIN}" ]]; then
    printf 'no sshd at %s (package openssh-server; ./brokerbench setup installs it)\n' "${NETNS_SSHD_BIN}"
    return 1
  fi
  if ! out=$(ip netns add "${probe}" 2>&1); then
    printf 'cannot create a network namespace: ip netns add: %s\n' "${out}"
    return 1
  fi
  out=$(ip netns exec "${probe}" true 2>&1) || {
    ip netns del "${probe}" 2>/dev/null || true
    printf 'cannot run a command in a network namespace: ip netns exec: %s\n' "${out}"
    return 1
  }
  ip netns del "${probe}" 2>/dev/null || true
  if ! out=$(ip link add "${probe}" type bridge 2>&1); then
    printf 'no bridge support: ip link add type bridge: %s\n' "${out}"
    return 1
  fi
  ip link del "${probe}" 2>/dev/null || true
  if ! out=$(ip link add "${probe}" type veth peer name "${probe}p" 2>&1); then
    printf 'no veth support: ip link add type veth: %s\n' "${out}"
    return 1
  fi
  ip link del "${probe}" 2>/dev/null || true
  return 0
}

# True when nothing in this namespace uses or routes the /24 NET.0/24 (NET = three octets):
# no address in it, no route inside it, no route other than the default one covering it.
_netns_subnet_free() {
  local net="$1" route
  [[ -z "$(ip -4 -o addr show to "${net}.0/24")" ]] || return 1
  [[ -z "$(ip -4 route show table all root "${net}.0/24")" ]] || return 1
  while IFS= read -r route; do
    [[ "${route}" == default* ]] || return 1
  done < <(ip -4 route show table all match "${net}.0/24")
}

# Picks a free /24 and gives the bridge its .1; the caller holds the lock.
_netns_make_bridge_locked() {
  local base="${BB_NETNS_NET:-10.231}" first="${BB_NETNS_OCTET:-$(($$ % 256))}" i net=""
  if [[ ! "${base}" =~ ^[0-9]{1,3}\.[0-9]{1,3}$ ]] ||
    [[ ! "${first}" =~ ^[0-9]{1,3}$ || ${first} -gt 255 ]]; then
    _netns_err "BB_NETNS_NET='${base}' must be two octets (e.g. 10.231) and BB_NETNS_OCTET='${first}' one (0-255)"
    return 1
  fi
  for ((i = 0; i < 256; i++)); do
    if _netns_subnet_free "${base}.$(((first + i) % 256))"; then
      net="${base}.$(((first + i) % 256))"
      break
    fi
  done
  if [[ -z "${net}" ]]; then
    _netns_err "no free /24 in ${base}.0.0/16 (every one has an address or a route); set BB_NETNS_NET"
    return 1
  fi
  ip link add "${NETNS_BRIDGE}" type bridge || {
    _netns_err "cannot create the bridge ${NETNS_BRIDGE}"
    return 1
  }
  _netns_record bridge "${NETNS_BRIDGE}"
  if ! ip addr add "${net}.1/24" dev "${NETNS_BRIDGE}" || ! ip link set "${NETNS_BRIDGE}" up; then
    _netns_err "cannot give the bridge ${NETNS_BRIDGE} the address ${net}.1/24"
    return 1
  fi
  NETNS_NET="${net}"
  NETNS_SUBNET="${net}.0/24"
  NETNS_BRIDGE_ADDR="${net}.1"
}

# The bridge and its subnet, under a lock shared by all runs on this machine so that two runs
# never pick the same /24 between one's check and the other's `ip addr add`.
_netns_make_bridge() {
  local lockdir=/run/lock fd rc=0
  [[ -d "${lockdir}" ]] || lockdir=/tmp
  exec {fd}>>"${lockdir}/brokerbench-netns.lock" || {
    _netns_err "cannot open the lock file ${lockdir}/brokerbench-netns.lock"
    return 1
  }
  if flock -w 30 "${fd}"; then
    _netns_make_bridge_locked || rc=$?
  else
    _netns_err "another run held ${lockdir}/brokerbench-netns.lock for 30 s"
    rc=1
  fi
  exec {fd}>&-
  return "${rc}"
}

# Host number INDEX called NAME: its namespace, a veth pair from the bridge into it, its
# address, lo up.
_netns_add_host() {
  local index="$1" name="$2"
  local ns="${NETNS_TAG}-${name}" veth="${NETNS_TAG}v${index}" addr="${NETNS_NET}.$((index + 2))"
  ip netns add "${ns}" || {
    _netns_err "host ${name}: cannot create the namespace ${ns}"
    return 1
  }
  _netns_record ns "${ns}" "${name}"
  ip link add "${veth}" type veth peer name eth0 netns "${ns}" || {
    _netns_err "host ${name}: cannot create the veth pair ${veth} / ${ns}:eth0"
    return 1
  }
  _netns_record link "${veth}"
  if ! ip link set "${veth}" master "${NETNS_BRIDGE}" up ||
    ! ip -n "${ns}" addr add "${addr}/24" dev eth0 ||
    ! ip -n "${ns}" link set eth0 up ||
    ! ip -n "${ns}" link set lo up; then
    _netns_err "host ${name}: cannot bring up ${veth} on ${NETNS_BRIDGE} and ${ns}:eth0 with ${addr}/24"
    return 1
  fi
  NETNS_NS["${name}"]="${ns}"
  NETNS_ADDR["${name}"]="${addr}"
  NETNS_HOSTS+=("${name}")
}

# Creates one emulated host per NAME (lower-case letters, digits, '-'; starting with a letter;
# at most 32 characters; at most 250 hosts). Sets NETNS_DIR, NETNS_TAG, NETNS_BRIDGE,
# NETNS_SUBNET, NETNS_NET (three octets), NETNS_BRIDGE_ADDR, NETNS_HOSTS (the names in order),
# NETNS_ADDR[NAME] and NETNS_NS[NAME] (its namespace). On failure what was created stays
# recorded for netns_teardown.
netns_setup() {
  local name i
  if [[ -n "${NETNS_DIR:-}" ]]; then
    _netns_err "netns_setup: already set up (state in ${NETNS_DIR}); call netns_teardown first"
    return 1
  fi
  if [[ $# -lt 1 || $# -gt 250 ]]; then
    _netns_err "netns_setup: give 1 to 250 host names (got $#)"
    return 1
  fi
  for ((i = 1; i <= $#; i++)); do
    name="${!i}"
    if [[ ! "${name}" =~ ^[a-z][a-z0-9-]{0,31}$ ]]; then
      _netns_err "netns_setup: host name '${name}' is not a lower-case letter followed by up to 31 letters, digits or '-'"
      return 1
    fi
    if [[ " ${*:1:i-1} " == *" ${name} "* ]]; then
      _netns_err "netns_setup: host name '${name}' given twice"
      return 1
    fi
  done

  NETNS_TAG="bbt$$"
  NETNS_BRIDGE="${NETNS_TAG}br"
  for name in "$@"; do
    if [[ -e "/run/netns/${NETNS_TAG}-${name}" ]]; then
      _netns_err "the namespace ${NETNS_TAG}-${name} already exists (left by an earlier run with the same pid? 'ip netns del ${NETNS_TAG}-${name}')"
      return 1
    fi
  done
  if ip link show "${NETNS_BRIDGE}" >/dev/null 2>&1; then
    _netns_err "the interface ${NETNS_BRIDGE} already exists (left by an earlier run with the same pid? 'ip link del ${NETNS_BRIDGE}')"
    return 1
  fi

  NETNS_DIR=$(mktemp -d /tmp/bbnetns.XXXXXX) || {
    _netns_err "cannot create a temporary directory"
    NETNS_DIR=""
    return 1
  }
  : >"${NETNS_DIR}/created"
  declare -gA NETNS_ADDR=() NETNS_NS=() NETNS_SSHD_PID=()
  NETNS_HOSTS=()
  _netns_make_bridge || return 1
  i=0
  for name in "$@"; do
    _netns_add_host "${i}" "${name}" || return 1
    i=$((i + 1))
  done
}

# Prints the address of host NAME.
netns_addr() {
  if [[ -z "${NETNS_ADDR[$1]:-}" ]]; then
    _netns_err "netns_addr: no host '$1' (hosts: ${NETNS_HOSTS[*]:-none})"
    return 1
  fi
  printf '%s\n' "${NETNS_ADDR[$1]}"
}

# An address in the subnet that no host has (nothing answers there).
netns_unused_addr() {
  [[ -n "${NETNS_NET:-}" ]] || { _netns_err "netns_unused_addr: not set up"; return 1; }
  printf '%s.254\n' "${NETNS_NET}"
}

# Runs cmd... inside host NAME's namespace (as root, directly, without ssh).
netns_exec() {
  local name="$1"
  shift
  if [[ -z "${NETNS_NS[${name}]:-}" ]]; then
    _netns_err "netns_exec: no host '${name}' (hosts: ${NETNS_HOSTS[*]:-none})"
    return 1
  fi
  ip netns exec "${NETNS_NS[${name}]}" "$@"
}

# The keys, once per run: a host key shared by all our sshds and a client key that only they
# accept (from our subnet only), so root's ~/.ssh is never read or written.
_netns_ssh_keys() {
  local dir="${NETNS_DIR}/ssh"
  [[ -f "${dir}/authorized_keys" ]] && return 0
  mkdir -p "${dir}" || return 1
  if ! ssh-keygen -q -t ed25519 -N '' -C brokerbench-netns-host -f "${dir}/ssh_host_ed25519_key" ||
    ! ssh-keygen -q -t ed25519 -N '' -C brokerbench-netns-client -f "${dir}/id_ed25519"; then
    _netns_err "ssh-keygen failed"
    return 1
  fi
  printf 'from="%s" %s\n' "${NETNS_SUBNET}" "$(cat "${dir}/id_ed25519.pub")" \
    >"${dir}/authorized_keys"
}

# The client configuration: one Host entry per host, under its name and its address, and the
# options they share (this key only, no prompts, no known_hosts, a bounded connect).
_netns_write_ssh_config() {
  local config="${NETNS_DIR}/ssh/ssh_config" name
  {
    printf '# Written by tests/controller/lib/netns.sh for the run %s (netns_teardown removes it).\n' \
      "${NETNS_TAG}"
    for name in "${NETNS_HOSTS[@]}"; do
      printf 'Host %s %s\n  HostName %s\n' \
        "${name}" "${NETNS_ADDR[${name}]}" "${NETNS_ADDR[${name}]}"
    done
    printf 'Host %s %s.*\n' "${NETNS_HOSTS[*]}" "${NETNS_NET}"
    printf '  %s\n' "User root" "Port 22" "IdentityFile ${NETNS_DIR}/ssh/id_ed25519" \
      "IdentitiesOnly yes" "BatchMode yes" "StrictHostKeyChecking no" \
      "UserKnownHostsFile /dev/null" "GlobalKnownHostsFile /dev/null" "CheckHostIP no" \
      "LogLevel ERROR" "ConnectTimeout 5" "ForwardAgent no" "ForwardX11 no"
  } >"${config}" || return 1
  NETNS_SSH_CONFIG="${config}"
  export NETNS_SSH_CONFIG
}

# The sshd configuration of host NAME: its address only, our keys only, no passwords, no PAM,
# no forwarding of X11 or agents.
_netns_write_sshd_config() {
  local name="$1" dir="${NETNS_DIR}/ssh"
  printf '%s\n' \
    "# Written by tests/controller/lib/netns.sh for host ${name} of the run ${NETNS_TAG}." \
    "ListenAddress ${NETNS_ADDR[${name}]}:22" \
    "HostKey ${dir}/ssh_host_ed25519_key" \
    "PidFile ${NETNS_DIR}/sshd-${name}.pid" \
    "AuthorizedKeysFile ${dir}/authorized_keys" \
    "PermitRootLogin prohibit-password" \
    "PubkeyAuthentication yes" \
    "PasswordAuthentication no" \
    "KbdInteractiveAuthentication no" \
    "UsePAM no" \
    "StrictModes no" \
    "X11Forwarding no" \
    "AllowAgentForwarding no" \
    "PermitTunnel no" \
    "PermitUserEnvironment no" \
    "UseDNS no" \
    "PrintMotd no" \
    "PrintLastLog no" \
    "MaxStartups 100:30:200" \
    "Subsystem sftp internal-sftp" \
    >"${dir}/sshd_config-${name}"
}

# True when sshd answers on ADDR:22 with its banner.
# shellcheck disable=SC2016  # $1 and ${line} belong to the inner bash
_netns_sshd_answers() {
  timeout 3 bash -c \
    'exec 3<>"/dev/tcp/$1/22" && IFS= read -r -t 2 line <&3 && [[ "${line}" == SSH-2.0-* ]]' \
    _ "$1" 2>/dev/null
}

# Starts an sshd inside each host NAME (all hosts when none is given), listening on the host's
# address, port 22, and waits (at most 10 s each) until each answers. Writes (and exports)
# NETNS_SSH_CONFIG, with an entry for every host.
netns_start_sshd() {
  local name pid config log deadline
  if [[ -z "${NETNS_DIR:-}" ]]; then
    _netns_err "netns_start_sshd: call netns_setup first"
    return 1
  fi
  [[ $# -gt 0 ]] || set -- "${NETNS_HOSTS[@]}"
  for name in "$@"; do
    if [[ -z "${NETNS_NS[${name}]:-}" ]]; then
      _netns_err "netns_start_sshd: no host '${name}' (hosts: ${NETNS_HOSTS[*]})"
      return 1
    fi
    if [[ -n "${NETNS_SSHD_PID[${name}]:-}" ]]; then
      _netns_err "netns_start_sshd: host ${name} already has an sshd (pid ${NETNS_SSHD_PID[${name}]})"
      return 1
    fi
  done
  _netns_ssh_keys || return 1
  _netns_write_ssh_config || {
    _netns_err "cannot write the ssh client configuration"
    return 1
  }
  # sshd's privilege separation directory; Debian's service creates it at boot, we may have
  # none.
  if [[ ! -d /run/sshd ]]; then
    mkdir -m 0755 /run/sshd || {
      _netns_err "cannot create /run/sshd (sshd's privilege separation directory)"
      return 1
    }
  fi

  for name in "$@"; do
    config="${NETNS_DIR}/ssh/sshd_config-${name}"
    log="${NETNS_DIR}/sshd-${name}.log"
    _netns_write_sshd_config "${name}" || {
      _netns_err "host ${name}: cannot write ${config}"
      return 1
    }
    if ! "${NETNS_SSHD_BIN}" -t -f "${config}" >"${log}" 2>&1; then
      _netns_err "host ${name}: sshd rejects ${config}: $(cat "${log}")"
      return 1
    fi
    ip netns exec "${NETNS_NS[${name}]}" "${NETNS_SSHD_BIN}" -D -e -f "${config}" \
      </dev/null >>"${log}" 2>&1 &
    pid=$!
    _netns_record sshd "${pid}" "${name}" "${config}"
    NETNS_SSHD_PID["${name}"]="${pid}"
  done

  for name in "$@"; do
    pid="${NETNS_SSHD_PID[${name}]}"
    log="${NETNS_DIR}/sshd-${name}.log"
    deadline=$(($(_netns_now_us) + 10000000))
    while true; do
      if ! _netns_alive "${pid}"; then
        _netns_err "host ${name}: sshd (pid ${pid}) exited at start; its log ${log}:"
        sed 's/^/  /' "${log}" >&2
        return 1
      fi
      _netns_sshd_answers "${NETNS_ADDR[${name}]}" && break
      if [[ $(_netns_now_us) -ge ${deadline} ]]; then
        _netns_err "host ${name}: sshd (pid ${pid}) does not answer on ${NETNS_ADDR[${name}]}:22 after 10 s; its log: ${log}"
        return 1
      fi
      sleep 0.1
    done
  done
}

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
  while read -r kind a b c; do
    case "${kind}" in
      sshd) _netns_stop_sshd "${a}" "${b}" "${c}" ;;
    esac
  done <"${state}"
  while read -r kind a b _; do
    case "${kind}" in
      ns) _netns_sweep "${a}" "${b}" || rc=1 ;;
    esac
  done <"${state}"
  # Deleting one end of a veth pair deletes both; then the bridge, then the namespaces.
  while read -r kind a _; do
    case "${kind}" in
      link) ip link del "${a}" 2>/dev/null || true ;;
    esac
  done <"${state}"
  while read -r kind a _; do
    case "${kind}" in
      bridge) ip link del "${a}" 2>/dev/null || true ;;
    esac
  done <"${state}"
  while read -r kind a _; do
    case "${kind}" in
      ns) ip netns del "${a}" 2>/dev/null || true ;;
    esac
  done <"${state}"
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
