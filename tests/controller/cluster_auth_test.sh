#!/usr/bin/env bash
# controller/pgcluster's clusters authenticate every connection (issue 16): over the Unix socket
# and over 127.0.0.1, without the password a connection is refused, with the kit's connection
# string (which names the password file) it is accepted; another OS user gets nothing; and a
# cluster made by an earlier version (trust, no password) is upgraded in place when it starts,
# stopped or running. Its own throwaway cluster in a temporary directory.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=tests/controller/lib/check.sh
source "${root}/tests/controller/lib/check.sh"
# shellcheck source=controller/lib/common.sh
source "${root}/controller/lib/common.sh"
pgcluster="${root}/controller/pgcluster"
data="$(mktemp -d /tmp/bbauthtest.XXXXXX)"
chmod 0711 "${data}"
dir="${data}/pg"
holder=
cleanup() {
  [[ -z "${holder}" ]] || kill "${holder}" 2>/dev/null || true
  "${pgcluster}" destroy "${dir}" >/dev/null 2>&1 || true
  rm -rf -- "${data}"
}
trap cleanup EXIT
unset PGPASSWORD PGPASSFILE

"${pgcluster}" init "${dir}" --throwaway >/dev/null
"${pgcluster}" start "${dir}" >/dev/null
# where_it_listens: the kit's connection string, and the test's own over the socket and over
# 127.0.0.1, for the port the cluster listens on now (a start moves it to the next free port when
# another program took its port while it was stopped: the suite's other clusters do).
where_it_listens() {
  kit=$("${pgcluster}" conninfo "${dir}") || return 1
  port=$(sed -n 's/.*port=\([0-9]*\).*/\1/p' <<<"${kit}")
  socket="host=${dir}/run port=${port} user=brokerbench dbname=postgres"
  tcp="host=127.0.0.1 port=${port} user=brokerbench dbname=postgres"
}
where_it_listens

# connects CONNINFO [runuser -u USER --]: succeeds when "select 1" answers 1; its error in
# ${data}/err. passfile=/dev/null: no ~/.pgpass of the tester's counts.
connects() {
  local conninfo="$1"
  shift
  [[ "$("$@" psql "${conninfo}" -XAtc 'select 1' 2>"${data}/err")" == 1 ]]
}
refused_for_want_of_a_password() {
  ! connects "$@" && grep -q 'no password supplied' "${data}/err"
}
refused_with_a_wrong_password() {
  ! PGPASSWORD=guess connects "$1" && grep -q 'password authentication failed' "${data}/err"
}
refused() { ! connects "$@"; }
cannot_read() { ! "${@:2}" cat "$1" >/dev/null 2>&1; }
says_nothing() { [[ -z "$("$@")" ]]; }

check "the kit's connection string names the password file, not the password" \
  has_line <(printf '%s\n' "${kit}") "passfile=${dir}/pgpass$"
check "the password file is the kit user's alone (0600)" \
  test "$(stat -c '%a %u' "${dir}/pgpass")" = "600 $(id -u)"
check "with it: accepted over the socket" connects "${kit}"
check "with it: accepted over 127.0.0.1" connects "${tcp} passfile=${dir}/pgpass"
check "without the password: refused over the socket" \
  refused_for_want_of_a_password "${socket} passfile=/dev/null"
check "without the password: refused over 127.0.0.1" \
  refused_for_want_of_a_password "${tcp} passfile=/dev/null"
check "a wrong password: refused" refused_with_a_wrong_password "${tcp} passfile=/dev/null"
check "pg_hba.conf has no trust line" lacks_line "${dir}/data/pg_hba.conf" '^[^#].*trust'

# Another OS user (as root: nobody), as the user who found the hole did it.
if is_root; then
  as_nobody=(runuser -u nobody --)
  check "as nobody: refused over 127.0.0.1" \
    refused_for_want_of_a_password "${tcp}" "${as_nobody[@]}"
  check "as nobody: refused over the socket" refused "${socket}" "${as_nobody[@]}"
  check "as nobody: the password file cannot be read" cannot_read "${dir}/pgpass" "${as_nobody[@]}"
else
  printf 'skipped: connecting as another OS user (needs root for runuser -u nobody)\n'
fi

# A cluster as an earlier version left it: trust for every local connection, no password, no
# password file.
make_old_cluster() {
  printf 'local all all trust\nhost all all 127.0.0.1/32 trust\n' >"${dir}/data/pg_hba.conf"
  psql "${kit}" -XAtq -c 'select pg_reload_conf()' >/dev/null
  psql "${kit}" -Xq -c 'alter role brokerbench password null'
  rm -f "${dir}/pgpass"
}
upgraded() {
  where_it_listens &&
    connects "${kit}" &&
    connects "${tcp} passfile=${dir}/pgpass" &&
    refused_for_want_of_a_password "${socket} passfile=/dev/null" &&
    refused_for_want_of_a_password "${tcp} passfile=/dev/null" &&
    test "$(stat -c '%a' "${dir}/pgpass")" = 600 &&
    test -f "${dir}/data/pg_hba.conf.trust-before-upgrade"
}
# hold_port PORT: another program listens on 127.0.0.1:PORT (for 60 s at most); its pid in
# ${holder}, once it listens.
hold_port() {
  perl -MIO::Socket::INET -e '
    my $s = IO::Socket::INET->new(LocalAddr => "127.0.0.1", LocalPort => $ARGV[0], Listen => 1,
                                  ReuseAddr => 1) or die "listen $ARGV[0]: $!\n";
    print "listening\n"; close STDOUT; sleep 60' "$1" >"${data}/holder" &
  holder=$!
  for _ in {1..50}; do
    [[ -s "${data}/holder" ]] && return 0
    sleep 0.1
  done
  return 1
}
for state in stopped running; do
  make_old_cluster
  check "an old cluster: trusted before the upgrade" connects "${tcp} passfile=/dev/null"
  if [[ "${state}" == stopped ]]; then
    "${pgcluster}" stop "${dir}"
    # As in the suite, where other tests' clusters come and go: its port taken meanwhile.
    check "an old cluster (stopped): another program takes its port" hold_port "${port}"
  fi
  old_port="${port}"
  check "an old cluster ($state): start upgrades it" "${pgcluster}" start "${dir}"
  check "an old cluster ($state): afterwards only the password lets one in" upgraded
  if [[ -n "${holder}" ]]; then
    check "an old cluster (stopped): it moved off the taken port" test "${port}" != "${old_port}"
    kill "${holder}"
    wait "${holder}" 2>/dev/null || true
    holder=
  fi
  rm -f "${dir}/data/pg_hba.conf.trust-before-upgrade"
done
check "a second start changes nothing" says_nothing "${pgcluster}" start "${dir}"

check_summary
