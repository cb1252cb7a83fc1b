#!/usr/bin/env bash
# A database password given to the kit is never shown, stored or put on a command line
# (issue 16), in each form libpq reads: password=, password = , quoted, and a URI's
# user:password@. For each: the controller's redaction and hide_password, a psql and a
# component started through remote-exec with the password on its stdin (while they run, no
# /proc/PID/cmdline holds it), check-db's console output, and the Brokerage House's log when
# its connection string holds the password itself. Needs bb-conninfo, bb-loader and
# bb-brokerage-house built; its own throwaway cluster. Not a whole `brokerbench run`: that is
# run_test's business.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=tests/controller/lib/check.sh
source "${root}/tests/controller/lib/check.sh"
# shellcheck source=controller/lib/common.sh
source "${root}/controller/lib/common.sh"
pgcluster="${root}/controller/pgcluster"
data="$(mktemp -d /tmp/bbsecrettest.XXXXXX)"
chmod 0711 "${data}"
cleanup() {
  local d
  for d in "${data}"/component.*; do
    [[ ! -s "${d}/remote-exec.pid" ]] || "${root}/controller/remote-exec" stop "${d}" 5 >/dev/null 2>&1 || true
  done
  "${pgcluster}" destroy "${data}/pg" >/dev/null 2>&1 || true
  rm -rf -- "${data}"
}
trap cleanup EXIT
unset PGPASSWORD PGPASSFILE

# Every form has the password Q:uux.s3cr3t; "s3cr3t" is what must never show (it survives
# percent-encoding too).
readonly SECRET=s3cr3t
"${pgcluster}" init "${data}/pg" --throwaway >/dev/null
"${pgcluster}" start "${data}/pg" >/dev/null
admin=$("${pgcluster}" conninfo "${data}/pg")
port=$(sed -n 's/.*port=\([0-9]*\).*/\1/p' <<<"${admin}")
psql "${admin}" -Xq -v ON_ERROR_STOP=1 <<SQL
create role bbsecret login password 'Q:uux.${SECRET}';
create database bbsec owner bbsecret;
SQL
forms=(
  "host=127.0.0.1 port=${port} dbname=bbsec user=bbsecret password=Q:uux.${SECRET}"
  "host=127.0.0.1 port=${port} dbname=bbsec user=bbsecret password = Q:uux.${SECRET}"
  "host=127.0.0.1 port=${port} dbname=bbsec user=bbsecret password='Q:uux.${SECRET}' passfile=/dev/null"
  "postgresql://bbsecret:Q%3Auux.${SECRET}@127.0.0.1:${port}/bbsec"
)
names=("password=" "password = " "quoted" "URI")

no_secret_in() { ! grep -q -- "${SECRET}" "$@"; }
# Every process's command line, one a line, read by one process: a tr(1) per process took
# longer than the 5 s the psqls sleep on a loaded machine (CI), and missed them.
all_command_lines() {
  perl -e 'for (glob "/proc/[0-9]*/cmdline") { open my $f, "<", $_ or next; local $/;
    my $c = <$f>; next unless defined $c; $c =~ tr/\0/ /; print "$c\n" }'
}
# Starts a component the way run and build-db do for another host: remote-exec, the password
# on its stdin and not in its environment.
start_with_password() {
  local dir="$1"
  shift
  printf '%s\n' "${PGPASSWORD}" |
    env -u PGPASSWORD "${root}/controller/remote-exec" start "${dir}" out.log --pgpassword-stdin -- "$@" >/dev/null
}
wait_for_exit() {
  local n
  for ((n = 0; n < 1500; n++)); do
    [[ ! -s "$1/remote-exec.rc" ]] || return 0
    sleep 0.1
  done
  return 1
}

for i in "${!forms[@]}"; do
  form="${forms[i]}"
  name="${names[i]}"
  out="${data}/form$i"
  mkdir -p "${out}"
  redact_conninfo "${form}" >"${out}/redacted"
  check "${name}: redacted, no password" no_secret_in "${out}/redacted"
  check "${name}: redacted, the rest kept" has_line "${out}/redacted" "port=${port}"
  redact_args ./brokerbench run --users 3 --db "${form}" --comment x >"${out}/command"
  check "${name}: a command line with --db redacted" no_secret_in "${out}/command"
  check "${name}: ... the other words kept" has_line "${out}/command" '^./brokerbench run --users 3 --db .* --comment x$'

  (
    hide_password "test: --db" "${form}"
    printf '%s\n' "${DB_CONNINFO}" >"${out}/hidden"
    # psql finds the password in the environment: a connection proves it.
    psql "${DB_CONNINFO}" -XAtc 'select current_user, pg_sleep(5)' >"${out}/psql" 2>&1 &
    psql_pid=$!
    dir="${data}/component.$i"
    start_with_password "${dir}" psql "${DB_CONNINFO}" -XAtc 'select current_user, pg_sleep(5)'
    # Once both run psql (their command lines say so), while they sleep in the query: up to
    # 15 s, as on a loaded machine (CI) remote-exec took over 3 s to start its psql.
    for ((n = 0; n < 1500; n++)); do
      [[ "$(tr '\0' ' ' <"/proc/${psql_pid}/cmdline" 2>/dev/null)" == *pg_sleep* &&
        "$(tr '\0' ' ' <"/proc/$(cat "${dir}/remote-exec.pid" 2>/dev/null)/cmdline" 2>/dev/null)" == *pg_sleep* ]] && break
      sleep 0.01
    done
    all_command_lines >"${out}/cmdlines"
    wait "${psql_pid}" || true
    wait_for_exit "${dir}" || true
    cp "${dir}/out.log" "${out}/component"
  )
  check "${name}: hide_password leaves no password in the string" no_secret_in "${out}/hidden"
  check "${name}: psql connects with the password from the environment" \
    has_line "${out}/psql" '^bbsecret\|$'
  check "${name}: a component gets it on remote-exec's stdin" has_line "${out}/component" '^bbsecret\|$'
  check "${name}: no command line holds it while they run" no_secret_in "${out}/cmdlines"
  check "${name}: ... (they did run)" has_line "${out}/cmdlines" 'pg_sleep'

  # check-db through the entry script: it connects (the database holds no load, so its audit
  # fails), and prints no password.
  "${root}/brokerbench" check-db --db "${form}" >"${out}/check-db" 2>&1 || true
  check "${name}: check-db connected with the password" lacks_line "${out}/check-db" 'password authentication failed|no password supplied'
  check "${name}: check-db printed no password" no_secret_in "${out}/check-db"
done

# A program given the password in its own connection string (by hand) names the database in
# its log with the password redacted: the C++ side's RedactConninfo. A wrong one, so that it
# fails at once and says which database it could not reach.
for i in "${!forms[@]}"; do
  form="${forms[i]//Q:uux/wrong}"
  form="${form//Q%3Auux/wrong}"
  "${BB_BUILD_DIR}/brokerage_house/bb-brokerage-house" --db "${form}" --listen 127.0.0.1:0 \
    >"${data}/bh$i.log" 2>&1 || true
  check "${names[i]}: the Brokerage House names the database it could not reach" \
    has_line "${data}/bh$i.log" "cannot connect to the database \\(.*port=${port}"
  check "${names[i]}: ... with its password as ***" has_line "${data}/bh$i.log" 'password=\*\*\*'
  check "${names[i]}: ... and not the password" no_secret_in "${data}/bh$i.log"
done

check_summary
