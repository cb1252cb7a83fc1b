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

# The emulated hosts' sshds, and the teardown: in files of their own, sourced with this one.
# shellcheck source=tests/controller/lib/netns-ssh.sh
source "$(dirname "${BASH_SOURCE[0]}")/netns-ssh.sh"
# shellcheck source=tests/controller/lib/netns-teardown.sh
source "$(dirname "${BASH_SOURCE[0]}")/netns-teardown.sh"
