#!/usr/bin/env bash
# TLS (issue 30, item 4): a database that takes only TLS connections, and `./brokerbench run
# --db "... sslmode=verify-full sslrootcert=..."` against it. Its own throwaway cluster in a
# temporary directory, with a certificate authority and a server certificate (CN and SAN
# localhost) the test makes; its pg_hba.conf lets TCP in only as hostssl, so a plaintext
# connection of the kit is refused, and the run (or the check) fails.
#   1. plaintext over TCP is refused; verify-full with the test's CA is accepted, encrypted;
#   2. a wrong root certificate (another CA) fails the run at once with libpq's message,
#      before the build and any load: exit 1, within seconds, no table made;
#   3. a whole short run with verify-full (the loader, the Brokerage House, the wait sampler,
#      the controller's psql) completes, while this test samples pg_stat_ssl once a second
#      over the socket: every session of the kit it saw was encrypted, and it saw the
#      loader's, the Brokerage House's and the wait sampler's; the results show sslmode;
#   4. `brokerbench txn` and `check-db` with sslmode=require.
# The kit's programs run with PGSSLMODE=disable and PGSSLROOTCERT naming a file that does not
# exist: a connection that lost sslmode from its connection string would go plaintext (and be
# refused), one that lost sslrootcert would fail to verify. sslrootcert is given relative to the
# working directory: the Brokerage House and the monitor run in directories of their own.
# Traffic on loopback only.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=tests/controller/lib/check.sh
source "${root}/tests/controller/lib/check.sh"
# shellcheck source=controller/lib/common.sh
source "${root}/controller/lib/common.sh"
pgcluster="${root}/controller/pgcluster"
data="$(mktemp -d /tmp/bbtlstest.XXXXXX)"
chmod 0711 "${data}"  # the cluster's OS user (as root: brokerbench) reaches its files in it
dir="${data}/pg"
tls="${data}/tls"
export BB_DATA_DIR="${data}/var"  # the kit's own data: never the user's embedded cluster
run_pid=""
sampler_pid=""
cleanup() {
  local pid
  for pid in "${sampler_pid}" "${run_pid}"; do
    [[ -z "${pid}" ]] || kill -TERM "${pid}" 2>/dev/null || true
  done
  for pid in "${sampler_pid}" "${run_pid}"; do
    [[ -z "${pid}" ]] || wait "${pid}" 2>/dev/null || true
  done
  "${pgcluster}" destroy "${dir}" >/dev/null 2>&1 || true
  rm -rf -- "${data}"
}
trap cleanup EXIT
unset PGPASSWORD PGPASSFILE PGSSLMODE PGSSLROOTCERT PGSSLCERT PGSSLKEY PGREQUIRESSL PGSERVICE

# --- certificates: a CA, a server certificate it signs for localhost, and another CA ------------
mkdir -m 0755 "${tls}"
make_ca() {
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
    -subj "/CN=$2" -addext basicConstraints=critical,CA:TRUE \
    -addext keyUsage=critical,keyCertSign,cRLSign -keyout "${tls}/$1.key" -out "${tls}/$1.pem" 2>/dev/null
}
make_ca ca "brokerbench test CA"
make_ca wrong "another CA"
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=localhost \
  -keyout "${tls}/server.key" -out "${tls}/server.csr" 2>/dev/null
openssl x509 -req -in "${tls}/server.csr" -CA "${tls}/ca.pem" -CAkey "${tls}/ca.key" \
  -CAcreateserial -days 2 -out "${tls}/server.crt" \
  -extfile <(printf 'subjectAltName = DNS:localhost, IP:127.0.0.1\nextendedKeyUsage = serverAuth\n') 2>/dev/null
chmod 0600 "${tls}/server.key" "${tls}/ca.key" "${tls}/wrong.key"
chmod 0644 "${tls}/server.crt" "${tls}/ca.pem" "${tls}/wrong.pem"
# The server refuses a key that is not its own user's with mode 0600.
if is_root; then
  ensure_db_os_user
  chown "${BB_DB_OS_USER}:" "${tls}/server.key"
fi

# --- the cluster: TLS on, TCP only through hostssl ----------------------------------------------
"${pgcluster}" init "${dir}" --throwaway >/dev/null
cat >>"${dir}/data/brokerbench.conf" <<CONF
ssl = on
ssl_cert_file = '${tls}/server.crt'
ssl_key_file = '${tls}/server.key'
CONF
# pgcluster's first line (its mark: a pg_hba.conf without it is rewritten at start) and its
# socket lines; TCP as hostssl only.
{
  head -n 1 "${dir}/data/pg_hba.conf"
  grep -E '^local ' "${dir}/data/pg_hba.conf"
  printf 'hostssl all all 127.0.0.1/32 scram-sha-256\nhostssl all all ::1/128 scram-sha-256\n'
} >"${dir}/data/pg_hba.conf.new"
mv "${dir}/data/pg_hba.conf.new" "${dir}/data/pg_hba.conf"
if is_root; then chown "${BB_DB_OS_USER}:" "${dir}/data/pg_hba.conf"; fi
"${pgcluster}" start "${dir}" >/dev/null
kit=$("${pgcluster}" conninfo "${dir}")  # the superuser over the socket (no TLS there)
port=$(sed -n 's/.*port=\([0-9]*\).*/\1/p' <<<"${kit}")
psql "${kit}" -Xq -v ON_ERROR_STOP=1 -c 'create database bb_tls' -c 'create database bb_tls_wrong'
tcp="host=localhost port=${port} user=brokerbench passfile=${dir}/pgpass"

# --- 1. the server --------------------------------------------------------------------------------
check "pg_hba.conf has no plain host line" lacks_line "${dir}/data/pg_hba.conf" '^host[[:space:]]'
plain_err=$(psql "${tcp} dbname=bb_tls sslmode=disable" -XAtc 'select 1' 2>&1 || true)
printf 'plaintext: %s\n' "${plain_err}"
check "plaintext over TCP is refused" has_line <(printf '%s\n' "${plain_err}") 'no pg_hba.conf entry.*no encryption'
check "verify-full with the test's CA connects, encrypted" test "$(psql \
  "${tcp} dbname=bb_tls sslmode=verify-full sslrootcert=${tls}/ca.pem" -XAtc \
  'select ssl from pg_stat_ssl where pid = pg_backend_pid()')" = t

# The kit's programs: any connection that loses sslmode or sslrootcert from its string falls
# back on these, and fails (see the top).
lost=(env PGSSLMODE=disable PGSSLROOTCERT="${data}/lost-sslrootcert.pem")

# --- 2. a wrong root certificate ----------------------------------------------------------------
out="${data}/wrong.out"
rc=0
t0=${SECONDS}
(cd "${tls}" && "${lost[@]}" "${root}/brokerbench" run --results-dir "${data}/results-wrong" \
  --db "${tcp} dbname=bb_tls_wrong sslmode=verify-full sslrootcert=wrong.pem" \
  --customers 1000 --initial-trade-days 3 --duration 10s --ramp-up 2s >"${out}" 2>&1) || rc=$?
took=$((SECONDS - t0))
cat "${out}"
printf 'the run with the wrong root certificate ended after %s s\n' "${took}"
check "a wrong root certificate fails the run (exit 1)" test "${rc}" -eq 1
check "... with libpq's message" has_line "${out}" 'certificate verify failed'
check "... naming the server it tried" has_line "${out}" 'connection to server at "localhost".*port '"${port}"
check "... at once (within 30 s)" test "${took}" -le 30
check "... before the build and any load" lacks_line "${out}" '==> (building|loading)'
check "... and no table was made" test "$(psql "${kit/dbname=postgres/dbname=bb_tls_wrong}" -XAtc \
  "select count(*) from pg_tables where schemaname = 'public'")" = 0

# --- 3. a whole run with verify-full, sampled in pg_stat_ssl --------------------------------------
samples="${data}/sessions.txt"
: >"${samples}"
# One line per client backend but this sampler's own, once a second while PID runs (at most
# 400 samples): pid|application_name|ssl|datname.
sample_sessions() {
  local n
  for ((n = 0; n < 400; n++)); do
    kill -0 "$1" 2>/dev/null || return 0
    psql "${kit}" -XAt -F '|' -c "select a.pid, a.application_name, s.ssl, a.datname
        from pg_stat_ssl s join pg_stat_activity a using (pid)
       where a.backend_type = 'client backend' and a.pid <> pg_backend_pid()" \
      >>"${samples}" 2>>"${data}/sampler.err" || true
    sleep 1
  done
}
out="${data}/run.out"
results="${data}/results"
t0=${SECONDS}
(cd "${tls}" && exec "${lost[@]}" "${root}/brokerbench" run --results-dir "${results}" \
  --db "${tcp} dbname=bb_tls sslmode=verify-full sslrootcert=ca.pem" \
  --customers 1000 --initial-trade-days 3 --users 4 --db-workers 2 --ramp-up 3s --duration 15s \
  >"${out}" 2>&1) &
run_pid=$!
sample_sessions "${run_pid}" &
sampler_pid=$!
rc=0
wait "${run_pid}" || rc=$?
run_pid=""
wait "${sampler_pid}" || true
sampler_pid=""
cat "${out}"
printf 'the run took %s s\n' $((SECONDS - t0))
run_dir="${results}/0001"
check "the verify-full run exits 0" test "${rc}" -eq 0
check "... and makes a report" nonempty "${run_dir}/report.txt"

# Sessions by application name: "name pids encrypted-pids".
by_app=$(awk -F'|' '{ app = $2 == "" ? "(none)" : $2; key = app SUBSEP $1
    if (!(key in seen)) { seen[key] = 1; pids[app]++ }
    if ($3 != "t" && !(key in plain)) { plain[key] = 1; bad[app]++ } }
  END { for (a in pids) printf "%s %d %d\n", a, pids[a], pids[a] - bad[a] }' "${samples}" | sort)
printf 'sessions seen (application_name, sessions, encrypted):\n%s\n' "${by_app}"
sessions_of() { awk -v a="$1" '$1 == a { print $2 }' <<<"${by_app}"; }
check "the sampler ran for the whole run" test "$(cut -d'|' -f1 "${samples}" | sort -u | wc -l)" -ge 3
check "every session of the kit it saw was encrypted" test -z "$(awk -F'|' '$3 != "t"' "${samples}")"
check "it saw the Brokerage House's sessions (2 workers)" test "$(sessions_of bb-brokerage-house)" -ge 2
check "it saw the wait sampler's session" test "$(sessions_of brokerbench-wait-sampler)" -ge 1
check "it saw the loader's sessions" test "$(sessions_of bb-loader)" -ge 1
check "every session it saw was of the run's database" \
  test -z "$(awk -F'|' '$4 != "bb_tls"' "${samples}")"
check "the wait sampler connected (waits.csv has samples, no error)" \
  test "$(wc -l <"$(echo "${run_dir}"/sys/*/waits.csv)")" -gt 1 -a ! -s "$(echo "${run_dir}"/sys/*/wait-sampler.err)"
check "the database snapshots were taken" nonempty "${run_dir}/db/after/pg_stat_database.csv"
check "readme.txt shows sslmode and the root certificate" \
  has_line "${run_dir}/readme.txt" '^conninfo: .*sslmode=verify-full sslrootcert=ca.pem'
check "readme.txt names the server" has_line "${run_dir}/readme.txt" '^database: +PostgreSQL'
check "run.conf's command shows them" has_line "${run_dir}/run.conf" '^command=.*sslmode=verify-full'

# --- 4. bb-txn and check-db with sslmode=require --------------------------------------------------
require="${tcp} dbname=bb_tls sslmode=require"
check "txn with sslmode=require runs a Security-Detail" \
  "${lost[@]}" "${root}/brokerbench" txn --db "${require}" --brief SD
check "check-db with sslmode=require passes" "${lost[@]}" "${root}/brokerbench" check-db --db "${require}"

check_summary
