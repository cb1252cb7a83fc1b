#!/usr/bin/env bash
# The run configuration reader (controller/lib/runconfig.sh) and the ssh command line a host
# ends up on (controller/lib/hosts.sh), with no host and no ssh connection: a stand-in ssh
# writes down its arguments. Checks:
#   1. controller/run-config.example reads, and host names, user@host and IPv4/IPv6
#      addresses are taken as written;
#   2. a host that is not local, a host name, an address or user@host (one starting with '-'
#      above all: ssh would take it as an option) is refused in every section that names one,
#      with file:line and the value;
#   3. a key given twice in a section is refused with the lines of both; the same key in two
#      [customer_emulator] or [loader] sections is fine; a section that may appear once names
#      its first line when it appears again;
#   4. ssh gets "--" right before the host, for a command and for closing the shared
#      connection.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=tests/controller/lib/check.sh
source "${root}/tests/controller/lib/check.sh"
# shellcheck source=controller/lib/common.sh
source "${root}/controller/lib/common.sh"
# shellcheck source=controller/lib/hosts.sh
source "${root}/controller/lib/hosts.sh"
# shellcheck source=controller/lib/runconfig.sh
source "${root}/controller/lib/runconfig.sh"
work="$(mktemp -d /tmp/bbruncfgtest.XXXXXX)"
trap 'rm -rf -- "${work}"' EXIT

# reads FILE [PURPOSE]: read_run_config in a subshell (its errors exit); its exit status in
# ${rc}, its output and then the hosts it read in ${out}.
out="${work}/out"
reads() {
  rc=0
  (
    read_run_config "$@"
    printf 'hosts: db=%s bh=%s mee=%s ce=%s loader=%s\n' "${CFG_DB_HOST}" "${CFG_BH_HOST}" \
      "${CFG_MEE_HOST}" "${CFG_CE_HOSTS[*]}" "${CFG_LOADER_HOSTS[*]}"
  ) >"${out}" 2>&1 || rc=$?
}
# refused LINE: the reader exited 2 (a usage error) with LINE, word for word.
refused() { [[ ${rc} -eq 2 ]] && grep -qxF -- "$1" "${out}"; }

# --- 1. what is taken -------------------------------------------------------------------------
reads "${root}/controller/run-config.example" run
check "run-config.example reads" test "${rc}" -eq 0
check "... with its hosts" \
  has_line "${out}" '^hosts: db=db1 bh=bh1 mee=bh1 ce=client1 client2 loader=$'

cfg="${work}/good.conf"
cat >"${cfg}" <<'CONFIG'
[database]
conninfo = host=10.0.0.10 dbname=bb
host = bench@db-1.example.com

[brokerage_house]
host = 10.0.0.11
listen = 10.0.0.11:30000

[market_emulator]
host = fe80::1
listen = 10.0.0.11:30001

[customer_emulator]
host = client_1
users = 5

[customer_emulator]
host = local
users = 5

[loader]
host = ::1
CONFIG
reads "${cfg}" run
check "host names, user@host, IPv4/IPv6 addresses, local; the same keys in two sections" \
  test "${rc}" -eq 0
check "... as written" has_line "${out}" \
  '^hosts: db=bench@db-1\.example\.com bh=10\.0\.0\.11 mee=fe80::1 ce=client_1 local loader=::1$'

# --- 2. hosts that are not ----------------------------------------------------------------------
# bad_host SECTION VALUE: a configuration naming VALUE as SECTION's host on its line 3.
bad_host() {
  cfg="${work}/bad-host.conf"
  printf '# a comment\n[%s]\nhost = %s\n' "$1" "$2" >"${cfg}"
  reads "${cfg}" build-db
  refused "brokerbench: ${cfg}:3: host: '$2' is not local, a host name, an IP address or user@host"
}
for section in database brokerage_house market_emulator customer_emulator loader; do
  check "[${section}] host = -oProxyCommand=... is refused, naming the line and the value" \
    bad_host "${section}" '-oProxyCommand=touch /tmp/bb-pwned'
done
for value in -lroot 'user@-oProxyCommand=x' .hidden 'a b' 'host;id' "\$(id)" 'user@' '@host' \
  'bench@fe80::1;x' 'a/b'; do
  check "[customer_emulator] host = ${value} is refused" bad_host customer_emulator "${value}"
done

# --- 3. keys and sections given twice -----------------------------------------------------------
cfg="${work}/twice.conf"
cat >"${cfg}" <<'CONFIG'
[database]
conninfo = dbname=bb
[brokerage_house]
host = bh1
# a comment between them
host = bh2
CONFIG
reads "${cfg}" build-db
check "a host given twice in a section is refused, naming both lines" \
  refused "brokerbench: ${cfg}:6: 'host' appears twice in [brokerage_house] (first at ${cfg}:4)"

cat >"${cfg}" <<'CONFIG'
[test]
customers = 1000
duration = 5m
customers = 2000
[database]
conninfo = dbname=bb
CONFIG
reads "${cfg}" build-db
check "a [test] setting given twice is refused, naming both lines" \
  refused "brokerbench: ${cfg}:4: 'customers' appears twice in [test] (first at ${cfg}:2)"

cat >"${cfg}" <<'CONFIG'
[database]
conninfo = dbname=bb
[loader]
host = l1
load_units = 0-1
[loader]
host = l2
load_units = 2-3
load_units = 4
CONFIG
reads "${cfg}" build-db
check "a key given twice in the second [loader] is refused, naming its lines" \
  refused "brokerbench: ${cfg}:9: 'load_units' appears twice in [loader] (first at ${cfg}:8)"

cat >"${cfg}" <<'CONFIG'
[database]
conninfo = dbname=bb

[database]
host = db1
CONFIG
reads "${cfg}" build-db
check "[database] given twice is refused, naming both lines" \
  refused "brokerbench: ${cfg}:4: [database] appears twice (first at ${cfg}:1)"

# --- 4. ssh's command line ----------------------------------------------------------------------
mkdir -p "${work}/bin"
printf '#!/usr/bin/env bash\nprintf "%%s\\n" "$@" >>"%s"\n' "${work}/ssh-args" >"${work}/bin/ssh"
chmod +x "${work}/bin/ssh"
# ssh_args_end_with LINE...: the stand-in ssh's last arguments are the LINEs.
ssh_args_end_with() { [[ "$(tail -n "$#" "${work}/ssh-args")" == "$(printf '%s\n' "$@")" ]]; }
SSH_CONTROL_DIR="${work}/control"
mkdir -p "${SSH_CONTROL_DIR}"
PATH="${work}/bin:${PATH}" on_host -oProxyCommand=x true
check "on_host: ssh gets -- before the host and the command after it" \
  ssh_args_end_with -- -oProxyCommand=x 'true '
: >"${work}/ssh-args"
PATH="${work}/bin:${PATH}" close_ssh -oProxyCommand=x
check "close_ssh: ssh gets -O exit -- before the host" ssh_args_end_with -O exit -- -oProxyCommand=x

check_summary
