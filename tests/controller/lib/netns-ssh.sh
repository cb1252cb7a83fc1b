# shellcheck shell=bash
# shellcheck disable=SC2153 # NETNS_* are set by netns.sh, which sources this file
# netns.sh's sshd per emulated host (netns_start_sshd) and the ssh configuration that reaches
# them: sourced by netns.sh, never alone (it uses its state: NETNS_DIR, NETNS_HOSTS, NETNS_ADDR).

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
