#!/usr/bin/env bash
# The multi-host test bed of issue 9 (tests/controller/lib/netns.sh) on its own: three emulated
# hosts a, b, c (network namespaces on one bridge), an sshd in each; then
#   1. ssh to each host's name, and to its address, runs the command in that host's namespace;
#   2. a process on host a reaches a listener that host b started through ssh;
#   3. ssh to an address where nobody answers fails within the ConnectTimeout (about 5 s),
#      both when nothing answers ARP and when packets are silently dropped;
#   4. teardown reports and kills a process a test left running on a host, and leaves no
#      namespace, interface, route, sshd or temporary file of ours; a second teardown is
#      harmless; root's ~/.ssh is untouched throughout.
# Needs root, iproute2 and openssh-server; without them it prints "SKIPPED: <reason>" and
# exits 0. CI runs the suite as root with the packages of `brokerbench setup`, so it runs
# there. About 13 s.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=tests/controller/lib/check.sh
source "${root}/tests/controller/lib/check.sh"
# shellcheck source=tests/controller/lib/netns.sh
source "${root}/tests/controller/lib/netns.sh"

if ! reason=$(netns_check); then
  printf 'SKIPPED: %s\n' "${reason}"
  exit 0
fi

teardown_log="$(mktemp /tmp/bbnetnstest.XXXXXX)"

cleanup() {
  netns_teardown || true
  rm -f -- "${teardown_log}"
}
trap cleanup EXIT
# So that the EXIT trap also runs when the test is interrupted or killed.
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# A check the rest depends on: stop at once when it fails.
require() {
  local failures_before=${#CHECK_FAILED[@]}
  check "$@"
  if ((${#CHECK_FAILED[@]} > failures_before)); then
    printf 'stopped: the other checks need this one\n'
    check_summary || exit 1
  fi
}

hosts=(a b c)
remote() { ssh -F "${NETNS_SSH_CONFIG}" "$@"; }
now_ms() { printf '%s\n' "$(($(date +%s%N) / 1000000))"; }
# What root's ~/.ssh holds (names, sizes, times), to see that nothing wrote there.
root_ssh_listing() { ls -la --time-style=full-iso /root/.ssh 2>&1 || true; }
ssh_before="$(root_ssh_listing)"

# The IPv4 addresses that `ip -4 addr` shows where COMMAND runs, one per line.
ipv4_addresses() {
  "$@" ip -4 -o addr show | awk '{ sub(/\/.*/, "", $4); print $4 }' | sort
}

# What host NAME should see: lo and its own address, nothing else.
own_addresses() { printf '%s\n' 127.0.0.1 "${NETNS_ADDR[$1]}" | sort; }

namespace_has_its_address() {
  [[ "$(ipv4_addresses netns_exec "$1")" == "$(own_addresses "$1")" ]]
}

# The hosts' sshds listen on their own address only.
sshd_listens_on_own_address_only() {
  local name listening
  for name in "${hosts[@]}"; do
    listening=$(netns_exec "${name}" ss -Hltn | awk '{ print $4 }')
    [[ "${listening}" == "${NETNS_ADDR[${name}]}:22" ]] || return 1
  done
}

# `ssh TARGET` runs in host NAME's namespace: it sees that host's address and no other host's.
ssh_runs_on() {
  local name="$1" target="$2"
  [[ "$(ipv4_addresses remote "${target}")" == "$(own_addresses "${name}")" ]]
}

# Host b listens (through ssh, bounded by timeout) on its address; host a connects from its
# namespace with bash's /dev/tcp, sends a line and reads the answer, which names the peer
# address b saw. The listener is Perl (perl-base is Essential on Debian; nc and python3 are
# not guaranteed).
a_reaches_listener_on_b() {
  local addr_b="${NETNS_ADDR[b]}" out="${NETNS_DIR}/listener-b.out" listener answer i
  : >"${out}"
  remote b timeout 10 perl - "${addr_b}" 7000 >"${out}" 2>&1 <<'PERL' &
use strict;
use warnings;
use IO::Socket::INET;
my ($addr, $port) = @ARGV;
my $server = IO::Socket::INET->new(LocalAddr => $addr, LocalPort => $port, Listen => 1,
  ReuseAddr => 1) or die "cannot listen on $addr:$port: $@\n";
$| = 1;
print "listening\n";
my $client = $server->accept or die "accept: $!\n";
my $line = <$client> // '';
chomp $line;
print $client "b got '$line' from ", $client->peerhost, "\n";
close $client;
PERL
  listener=$!
  for ((i = 0; i < 50; i++)); do
    grep -qsx listening "${out}" && break
    sleep 0.1
  done
  answer=$(remote a bash -s -- "${addr_b}" 7000 <<'BASH'
exec 3<>"/dev/tcp/$1/$2" || exit 1
printf 'hello from a\n' >&3
IFS= read -r -t 5 line <&3 && printf '%s\n' "${line}"
BASH
  ) || true
  wait "${listener}" || true
  if [[ "${answer}" != "b got 'hello from a' from ${NETNS_ADDR[a]}" ]]; then
    printf '  answer: %s\n  listener on b said:\n' "${answer}"
    sed 's/^/    /' "${out}"
    return 1
  fi
}

# `ssh ADDRESS true` fails (255) within 6.5 s, with a message that matches PATTERN.
ssh_fails_fast() {
  local addr="$1" pattern="$2" start elapsed rc=0 out
  start=$(now_ms)
  out=$(remote "${addr}" true 2>&1) || rc=$?
  elapsed=$(($(now_ms) - start))
  printf '  ssh %s: exit %d after %d ms: %s\n' "${addr}" "${rc}" "${elapsed}" "${out}"
  [[ ${rc} -eq 255 && ${elapsed} -lt 6500 && "${out}" =~ ${pattern} ]]
}

# The address answers ARP with a MAC that nobody has, so the SYNs vanish as they would at a
# host that drops them; only ssh's ConnectTimeout (5 s) ends the wait.
blackhole() {
  ip neigh replace "$1" lladdr 02:00:00:00:00:fe dev "${NETNS_BRIDGE}" nud permanent
}

# Host c keeps a process running after its ssh session ends; prints its pid.
leave_process_on_c() {
  remote c 'sleep 300 </dev/null >/dev/null 2>&1 & echo $!'
}

# netns_addr of a host that does not exist fails, and says which.
unknown_host_fails() {
  local out rc=0
  out=$(netns_addr nosuchhost 2>&1) || rc=$?
  [[ ${rc} -ne 0 && "${out}" == *"no host 'nosuchhost'"* ]]
}
teardown_to() { netns_teardown 2>"$1"; }
not_alive() { [[ "$1" =~ ^[0-9]+$ ]] && ! _netns_alive "$1"; }
none_of_ours_in() { ! grep -qE -- "$1" <<<"$2"; }
no_process_with() { [[ -z "$(pgrep -f -- "$1" || true)" ]]; }
quiet_second_teardown() {
  local out
  out=$(netns_teardown 2>&1) && [[ -z "${out}" ]]
}

require "netns_setup ${hosts[*]}" netns_setup "${hosts[@]}"
printf '  subnet %s, bridge %s (%s), hosts:' \
  "${NETNS_SUBNET}" "${NETNS_BRIDGE}" "${NETNS_BRIDGE_ADDR}"
for h in "${hosts[@]}"; do printf ' %s=%s' "${h}" "${NETNS_ADDR[${h}]}"; done
printf '\n'
for h in "${hosts[@]}"; do
  check "host ${h}'s namespace has lo and ${NETNS_ADDR[${h}]} only" namespace_has_its_address "${h}"
done
check "netns_addr b prints b's address" test "$(netns_addr b)" = "${NETNS_ADDR[b]}"
check "netns_addr of an unknown host fails, naming it" unknown_host_fails

require "netns_start_sshd ${hosts[*]}" netns_start_sshd "${hosts[@]}"
check "each sshd listens on its host's address, port 22, only" sshd_listens_on_own_address_only
for h in "${hosts[@]}"; do
  check "ssh ${h} runs in host ${h}'s namespace" ssh_runs_on "${h}" "${h}"
done
check "ssh ${NETNS_ADDR[c]} (by address) runs in host c's namespace" \
  ssh_runs_on c "${NETNS_ADDR[c]}"
check "host a reaches a listener started on host b through ssh" a_reaches_listener_on_b

unused="$(netns_unused_addr)"
check "ssh to an unused address (no ARP answer) fails within 6.5 s" \
  ssh_fails_fast "${unused}" 'No route to host|timed out'
blackhole "${unused}"
check "ssh to an address that drops packets fails by ConnectTimeout within 6.5 s" \
  ssh_fails_fast "${unused}" 'timed out'

leftover="$(leave_process_on_c || true)"
dir="${NETNS_DIR}"
tag="${NETNS_TAG}"
subnet="${NETNS_SUBNET}"
check "netns_teardown succeeds" teardown_to "${teardown_log}"
sed "s/^/  teardown said: /" "${teardown_log}"
check "  ... and reports the process left on host c" \
  grep -q "host c .*killing pid ${leftover}: sleep 300" "${teardown_log}"
check "  ... and kills it" not_alive "${leftover}"
check "no namespace of ours is left" none_of_ours_in "^${tag}-" "$(ip netns list)"
check "no interface of ours is left" none_of_ours_in "${tag}(br|v[0-9])" "$(ip -o link show)"
check "no route to ${subnet} is left" test -z "$(ip -4 route show table all root "${subnet}")"
check "no sshd of ours is left" no_process_with "${dir}/"
check "the temporary directory is gone" test ! -e "${dir}"
check "a second teardown is quiet and succeeds" quiet_second_teardown
check "root's ~/.ssh is untouched" test "$(root_ssh_listing)" = "${ssh_before}"

check_summary
