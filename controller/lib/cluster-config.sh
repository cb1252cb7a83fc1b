# shellcheck shell=bash
# The configuration files of a pgcluster cluster (controller/pgcluster): pg_hba.conf (the
# password for every way in), the superuser's password file, the postgresql.conf settings sized
# for this machine (data/brokerbench.conf), and what an earlier version of the kit wrote
# differently, brought up to date at start, and the cluster's port. Sourced by
# controller/pgcluster, controller/standby and the durability tests (free_port); needs
# lib/common.sh, DB_SUPERUSER and, for upgrade_authentication, CLUSTER_PORT.

# Ends the port line of a port init chose itself (no --port): start moves such a port to a free
# one when another program (often another test's or kit's cluster, started since) has taken it.
readonly PORT_CHOSEN_MARK="  # chosen by init: the first free one from 5433; start moves it if taken"

# The port of the cluster in DIR (DIR/data/brokerbench.conf; the last line wins, as in PostgreSQL).
conf_port() {
  sed -n 's/^port *= *\([0-9]*\).*/\1/p' "$1/data/brokerbench.conf" | tail -n 1
}

port_in_use() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# The first port from FROM to LAST on which nothing listens on 127.0.0.1; fails if none is free.
free_port() {
  local port="$1"
  while port_in_use "${port}"; do
    port=$((port + 1))
    ((port <= $2)) || return 1
  done
  printf '%s\n' "${port}"
}

# Marks a pg_hba.conf written by write_hba; one without it (from an earlier version of the
# kit, which trusted every local user) is replaced when the cluster starts.
readonly HBA_MARK="# brokerbench pgcluster: every connection authenticates with scram-sha-256"

# DIR/data/pg_hba.conf: the password for every database, user and way in.
write_hba() {
  local dir="$1"
  cat >"${dir}/data/pg_hba.conf" <<HBA
${HBA_MARK}
# (the password is in ${dir}/pgpass; see controller/pgcluster). Written on $(date -u +%Y-%m-%dT%H:%M:%SZ).
# TYPE  DATABASE     USER  ADDRESS        METHOD
local   all          all                  scram-sha-256
local   replication  all                  scram-sha-256
host    all          all   127.0.0.1/32   scram-sha-256
host    all          all   ::1/128        scram-sha-256
host    replication  all   127.0.0.1/32   scram-sha-256
host    replication  all   ::1/128        scram-sha-256
HBA
  if is_root; then chown "${BB_DB_OS_USER}:" "${dir}/data/pg_hba.conf"; fi
}

# The superuser's password, from DIR/pgpass; made (random, 48 hex digits) and kept there with
# mode 0600 when there is none yet. Hex needs no escaping in a password file or in SQL.
cluster_password() {
  local file="$1/pgpass" password
  if [[ ! -s "${file}" ]]; then
    password=$(od -An -tx1 -N24 /dev/urandom | tr -d ' \n')
    [[ "${password}" =~ ^[0-9a-f]{48}$ ]] || die "cannot make a password from /dev/urandom"
    { (umask 077 && printf '*:*:*:*:%s\n' "${password}" >"${file}.tmp") && mv "${file}.tmp" "${file}"; } ||
      die "cannot write ${file}"
  fi
  sed -n 's/^\*:\*:\*:\*:\([0-9a-f]*\)$/\1/p' "${file}" | head -n 1
}

# postgresql.conf settings sized for this machine. Written once at init into
# data/brokerbench.conf; edit that file (or use ALTER SYSTEM) to change them.
write_settings() {
  local dir="$1" port="$2" tcp="$3" throwaway="$4" chosen="$5" lz4="$6"
  local mem cores shared cache maint
  mem=$(mem_total_mb)
  cores=$(nproc)
  if [[ ${throwaway} -eq 1 ]]; then
    shared=128; cache=512; maint=256
  else
    read -r shared cache maint < <(memory_settings "${mem}")
  fi
  [[ ${shared} -ge 128 ]] || shared=128
  local listen="''"
  [[ ${tcp} -eq 1 ]] && listen="'127.0.0.1'"
  local wal_compression="# Full-page images in the WAL compressed with lz4: pglz (\"on\") took 7 % of the backends'
# CPU at saturation (perf, BENCHMARKS.md), lz4 a fraction of it.
wal_compression = lz4"
  [[ ${lz4} -eq 1 ]] || wal_compression="# This server was built without lz4: full-page images are not compressed (pglz took 7 % of
# the backends' CPU at saturation, BENCHMARKS.md), so the WAL is larger than with lz4.
wal_compression = off"
  cat >"${dir}/data/brokerbench.conf" <<CONF
# Written by brokerbench pgcluster on $(date -u +%Y-%m-%dT%H:%M:%SZ) for a machine with
# ${cores} cores and ${mem} MB of memory.
listen_addresses = ${listen}          # loopback only; multi-host runs configure their own
port = ${port}${chosen:+${PORT_CHOSEN_MARK}}
unix_socket_directories = '${dir}/run'
unix_socket_permissions = 0700
max_connections = 300                 # DB workers of the Brokerage House, loader jobs, tools
shared_buffers = ${shared}MB
effective_cache_size = ${cache}MB
maintenance_work_mem = ${maint}MB     # index builds after a load
work_mem = 16MB
max_worker_processes = $((cores + 8))
max_parallel_workers = ${cores}
max_parallel_maintenance_workers = ${cores}
random_page_cost = 1.1
# Checkpoints: spread, and frequent enough that durable media lag committed state by far
# less than the 15 minutes TPC-E allows (clause 6.6.5.3).
checkpoint_timeout = 7min
checkpoint_completion_target = 0.9
max_wal_size = 8GB
min_wal_size = 1GB
${wal_compression}
track_io_timing = on
CONF
  statements_settings >>"${dir}/data/brokerbench.conf"
  cat >>"${dir}/data/brokerbench.conf" <<CONF
logging_collector = on
log_directory = '${dir}/log'
log_filename = 'postgresql-%Y%m%d-%H%M%S.log'
log_line_prefix = '%m [%p] %q%u@%d '
log_checkpoints = on
log_lock_waits = on
log_min_duration_statement = -1
CONF
  if [[ ${throwaway} -eq 1 ]]; then
    cat >>"${dir}/data/brokerbench.conf" <<'CONF'
# Throwaway test cluster: durability off for speed. Never measure with these.
fsync = off
full_page_writes = off
synchronous_commit = off
max_connections = 200
logging_collector = off
CONF
  fi
  printf "include 'brokerbench.conf'\n" >>"${dir}/data/postgresql.conf"
}

# A cluster made by an earlier version trusted every local user: give its superuser the
# password (made now) and replace its pg_hba.conf, then reload. The running server still
# trusts us for this one connection. The password goes to psql on stdin, not its command line.
upgrade_authentication() {
  local dir="$1" password
  grep -qxF "${HBA_MARK}" "${dir}/data/pg_hba.conf" 2>/dev/null && return 0
  password=$(cluster_password "${dir}")
  if is_root; then chown root: "${dir}/pgpass"; fi
  local trusted="host=${dir}/run port=${CLUSTER_PORT} user=${DB_SUPERUSER} dbname=postgres"
  psql "${trusted}" -Xq -v ON_ERROR_STOP=1 >/dev/null <<<"set password_encryption = 'scram-sha-256';
alter role \"${DB_SUPERUSER}\" password '${password}';" ||
    die "start: cannot set the password of '${DB_SUPERUSER}' in the cluster in '${dir}' (made by an earlier version, which trusted local users)"
  cp -p "${dir}/data/pg_hba.conf" "${dir}/data/pg_hba.conf.trust-before-upgrade"
  write_hba "${dir}"
  psql "${trusted}" -XAtq -c 'select pg_reload_conf()' >/dev/null ||
    die "start: cannot reload the cluster in '${dir}' after rewriting its pg_hba.conf"
  say "the cluster in ${dir} now asks every connection for its password (kept in ${dir}/pgpass); the old pg_hba.conf is kept as data/pg_hba.conf.trust-before-upgrade"
}

# pg_stat_statements for the report's "Top statements" (controller/db creates the extension in
# the benchmark database; controller/db-snapshot reads it at the measurement interval's start
# and end). Its cost is a hash table update per statement, small beside the statements.
statements_settings() {
  cat <<'CONF'
shared_preload_libraries = 'pg_stat_statements'
CONF
}

# Settings of a cluster made by an earlier version that this version chose differently, when
# they are still as that version wrote them (a line the user changed is left alone), and those
# it lacks; a running server takes them at its next start or reload (shared_preload_libraries:
# its next start).
upgrade_settings() {
  local conf="$1/data/brokerbench.conf"
  if grep -qx 'wal_compression = on' "${conf}"; then
    sed -i 's/^wal_compression = on$/wal_compression = lz4  # was on (pglz): see controller\/pgcluster/' "${conf}"
  fi
  grep -q '^shared_preload_libraries' "${conf}" || statements_settings >>"${conf}"
}

# Settings for the server's next start only (run --set NAME=VALUE): given to the postmaster as
# -c NAME=VALUE, which win over postgresql.conf and postgresql.auto.conf and are written to no
# file of the cluster, so nothing is left to undo after the run, not even after a killed one.
# DIR/run-settings lists those the running server was started with (no file: none); a start
# that asks for others (none included) restarts the server, so it always runs with what its
# last start asked for. Every setting costs a restart, also one a reload would take: seconds,
# against a ramp-up of minutes, and one rule for every setting.

# check_settings DIR NAME=VALUE...: each setting as the server takes it: postgres -C reads the
# configuration with it and prints the value, or fails naming the parameter and why. Refusals
# go to DIR/set-refused, one "NAME=VALUE: the server's reason" a line; false if there are any.
check_settings() {
  local dir="$1" s out why
  shift
  rm -f -- "${dir}/set-refused"
  for s in "$@"; do
    if [[ ! "${s}" =~ ${PG_SET_PATTERN} ]]; then
      printf '%s: not %s\n' "${s}" "${PG_SET_SHAPE}" >>"${dir}/set-refused"
      continue
    fi
    out=$(as_db_user "${CLUSTER_BIN}/postgres" -D "${dir}/data" -c "${s}" -C "${s%%=*}" 2>&1) && continue
    why=$(sed -n 's/^.*\(FATAL\|ERROR\): *//p' <<<"${out}" | head -n 1)
    printf '%s: %s\n' "${s}" "${why:-${out##*$'\n'}}" >>"${dir}/set-refused"
  done
  [[ ! -s "${dir}/set-refused" ]]
}

# The server's options for start_server: -c NAME=VALUE for each setting.
server_options() {
  local s options=""
  for s in "$@"; do options+="${options:+ }-c ${s}"; done
  printf '%s\n' "${options}"
}
