# shellcheck shell=bash
# Shared helpers for the controller scripts: messages, paths, the unprivileged database user.
# Sourced, never run. Orchestration only: logic lives in C++ or Perl.

BB_ROOT="${BB_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
# A CI build (CI set and not "false") compiles with warnings as errors, a setting of the CMake
# cache: it gets a build directory of its own, so that CI and a user never reconfigure and
# recompile each other's build.
is_ci() { [[ -n "${CI:-}" && "${CI}" != false ]]; }
# The build directory of the kit at ROOT: ROOT/build, or ROOT/build-ci for CI.
default_build_dir() {
  if is_ci; then printf '%s/build-ci\n' "$1"; else printf '%s/build\n' "$1"; fi
}
BB_BUILD_DIR="${BB_BUILD_DIR:-$(default_build_dir "${BB_ROOT}")}"
BB_DATA_DIR="${BB_DATA_DIR:-${BB_ROOT}/var}"
# The OS user that owns and runs PostgreSQL clusters when the kit runs as root
# (PostgreSQL refuses to run as root).
BB_DB_OS_USER="${BB_DB_OS_USER:-brokerbench}"

say() { printf '%s\n' "$*"; }
warn() { printf 'brokerbench: warning: %s\n' "$*" >&2; }
die() { printf 'brokerbench: %s\n' "$*" >&2; exit 1; }
usage_error() { printf 'brokerbench: %s\n' "$*" >&2; exit 2; }

# nap SECONDS: sleeps without starting a process: read's timeout on a pipe that nobody writes
# to (opened once). For loops that run once a second on the database's host for a whole run.
nap() {
  [[ -n "${NAP_FD:-}" ]] || exec {NAP_FD}<> <(:)
  read -r -t "$1" -u "${NAP_FD}" _ || true
}

is_root() { [[ "$(id -u)" -eq 0 ]]; }

# This machine's memory in MB (MemTotal of /proc/meminfo, in kB there).
# memory_settings MB: shared_buffers, effective_cache_size and maintenance_work_mem, in MB, for
# a database with MB of memory (a machine's, or run --db-memory's cap): a quarter for shared
# buffers (at most 8 GB), PostgreSQL's advice for a dedicated server, the rest left to the page
# cache and the backends; half as the planner's estimate of the cache; a sixteenth (at most
# 2 GB) for index builds and vacuum, whose workers each take that much.
memory_settings() {
  local mb="$1" shared maint
  shared=$((mb / 4)); ((shared <= 8192)) || shared=8192
  maint=$((mb / 16)); ((maint <= 2048)) || maint=2048
  printf '%s %s %s\n' "${shared}" "$((mb / 2))" "${maint}"
}

mem_total_mb() {
  local key kb _
  while read -r key kb _; do
    [[ "${key}" == MemTotal: ]] && { printf '%s\n' "$((kb / 1024))"; return; }
  done </proc/meminfo
  die "no MemTotal in /proc/meminfo"
}

# The kB value of FIELD (VmHWM, VmRSS) in /proc/PID/status, or nothing once PID is gone.
proc_status_kb() {
  local key kb _
  while read -r key kb _; do
    [[ "${key}" != "$2:" ]] || { printf '%s\n' "${kb}"; return 0; }
  done 2>/dev/null <"/proc/$1/status" || true
}

# A PostgreSQL setting for one run of the embedded cluster (run --set NAME=VALUE,
# controller/lib/cluster-config.sh): NAME as PostgreSQL spells its parameters, VALUE without
# spaces or quotes (pg_ctl hands the server's options to a shell).
# shellcheck disable=SC2034 # both read by controller/run and controller/lib/cluster-config.sh
readonly PG_SET_PATTERN='^[A-Za-z_][A-Za-z0-9_.]*=[A-Za-z0-9_.:/+,-]{1,256}$'
# shellcheck disable=SC2034
readonly PG_SET_SHAPE="NAME=VALUE (a name of letters, digits, _ and .; a value of 1 to 256 letters, digits and _.:/+,-)"

# The lines of FILE joined by "; ", for a one-line message.
lines_joined() {
  local line joined=""
  while IFS= read -r line; do joined+="${joined:+; }${line}"; done <"$1"
  printf '%s\n' "${joined}"
}

# utime+stime+cutime+cstime of PID in µs (its CPU and its reaped children's), or nothing once
# it has gone.
proc_cpu_us() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
  # Fields after the command name, which may hold spaces: utime is field 14, cstime 17.
  local -a f
  read -r -a f <<<"${stat##*) }"
  printf '%s\n' "$(((f[11] + f[12] + f[13] + f[14]) * 1000000 / $(getconf CLK_TCK)))"
}

# A controller's progress: a stage or a note on the screen and, time-stamped, in the log file
# CONTROLLER_LOG (run.log, build-db.log; /dev/null until the script has one).
CONTROLLER_LOG="${CONTROLLER_LOG:-/dev/null}"
stage() {
  printf '==> %s\n' "$*"
  printf '%s %s\n' "$(date -u +%FT%TZ)" "$*" >>"${CONTROLLER_LOG}"
}
note() {
  printf '    %s\n' "$*"
  printf '%s     %s\n' "$(date -u +%FT%TZ)" "$*" >>"${CONTROLLER_LOG}"
}

# ---- Connection strings and their passwords (issue 16) ----------------------------------------
# A connection string is read only by libpq's own parser (bb-conninfo, conninfo/main.cpp), so
# every form libpq accepts is understood: key=value with or without spaces around '=', quoted
# values, postgresql://user:password@ URIs. It goes to bb-conninfo on stdin: a command line is
# readable by every local user in /proc/PID/cmdline.

# Runs bb-conninfo, built first when it is missing.
conninfo_tool() {
  local tool="${BB_BUILD_DIR}/conninfo/bb-conninfo"
  if [[ ! -x "${tool}" ]]; then
    "${BB_ROOT}/controller/build" --target bb-conninfo >&2 ||
      die "cannot build bb-conninfo, with which the controller reads connection strings"
  fi
  "${tool}" "$@"
}

# CONNINFO as it may be shown or stored: its password (and sslpassword) as ***.
redact_conninfo() { conninfo_tool redact <<<"$1"; }

# The words of a command line joined by spaces, with the value of each --db redacted.
redact_args() {
  local out="" word prev=""
  for word in "$@"; do
    [[ "${prev}" != --db ]] || word=$(redact_conninfo "${word}")
    out+="${out:+ }${word}"
    prev="${word}"
  done
  printf '%s
' "${out}"
}

# Takes the password out of CONNINFO, the value of FIELD (e.g. "run: --db"), into DB_CONNINFO;
# a usage error naming FIELD when libpq cannot parse it. The password goes to PGPASSWORD, where
# libpq finds it for every program and tool this script starts: their environment, unlike
# their command line, is readable only by their own user. A component on another host gets it
# on remote-exec's stdin (remote-exec start --pgpassword-stdin). So no command line, log or
# results file holds it.
DB_CONNINFO=""
hide_password() {
  local field="$1" conninfo="$2" out
  out=$(conninfo_tool split <<<"${conninfo}" 2>&1) || usage_error "${field}: ${out#bb-conninfo: }"
  DB_CONNINFO="${out%%$'\n'*}"
  [[ "${out}" != *$'\n'* ]] || export PGPASSWORD="${out#*$'\n'}"
}

# Seconds from DURATION (90, 90s, 5m, 2h), or a usage error naming PROGRAM and OPTION.
to_seconds() {
  local program="$1" option="$2" value="$3"
  [[ "${value}" =~ ^([0-9]{1,6})([smh]?)$ ]] ||
    usage_error "${program}: ${option}: '${value}' is not a duration such as 90, 90s, 5m or 2h"
  local n=$((10#${BASH_REMATCH[1]}))
  case "${BASH_REMATCH[2]}" in
    m) n=$((n * 60)) ;;
    h) n=$((n * 3600)) ;;
  esac
  printf '%s\n' "${n}"
}

# Runs a command as the user that owns database clusters: as that user when we are root,
# as ourselves otherwise.
as_db_user() {
  if is_root; then
    runuser -u "${BB_DB_OS_USER}" -- "$@"
  else
    "$@"
  fi
}

# Makes sure the unprivileged database user exists (root only).
ensure_db_os_user() {
  is_root || return 0
  id -u "${BB_DB_OS_USER}" >/dev/null 2>&1 && return 0
  useradd --system --user-group --no-create-home --home-dir /nonexistent \
    --shell /usr/sbin/nologin "${BB_DB_OS_USER}" ||
    die "cannot create the system user '${BB_DB_OS_USER}' that runs PostgreSQL"
}

# Creates the next numbered directory under PARENT (0001, 0002, ...) and prints its absolute
# path. Never reuses one: mkdir fails when another run took the number first, and then the
# next number is tried.
make_numbered_dir() {
  local parent="$1" last n
  mkdir -p "${parent}" || die "cannot create ${parent}"
  last=$(find "${parent}" -mindepth 1 -maxdepth 1 -type d -regex '.*/[0-9][0-9][0-9][0-9]+' \
    -printf '%f\n' | sort -n | tail -n 1)
  n=$((10#${last:-0} + 1))
  while ! mkdir "${parent}/$(printf '%04d' "${n}")" 2>/dev/null; do
    n=$((n + 1))
    ((n < 100000)) || die "cannot create a numbered directory under ${parent}"
  done
  (cd "${parent}/$(printf '%04d' "${n}")" && pwd)
}

# ---- The PostgreSQL server binaries (initdb, pg_ctl, postgres) ---------------------------------
# BB_PG_BIN (the commands' --pg-bin) names the bin directory of any PostgreSQL 14 to 18: the
# community packages' /usr/lib/postgresql/N/bin, a source build, an unpacked server build
# (controller/pg-builds). Without it, Debian's package (15), which keeps them off PATH. A cluster
# keeps the directory it was made with (controller/pgcluster).
readonly PG_MAJOR_MIN=14 PG_MAJOR_MAX=18

pg_bindir() {
  if [[ -n "${BB_PG_BIN:-}" ]]; then
    printf '%s\n' "${BB_PG_BIN}"
    return
  fi
  local dir
  for dir in /usr/lib/postgresql/15/bin /usr/lib/postgresql/*/bin; do
    if [[ -x "${dir}/pg_ctl" ]]; then
      printf '%s\n' "${dir}"
      return
    fi
  done
  die "no PostgreSQL server binaries found (looked in /usr/lib/postgresql/*/bin); run './brokerbench setup' or name them with --pg-bin DIR"
}

# The major version of the server binaries in DIR (14, 18), from `postgres --version`.
pg_bin_major() {
  local out
  out=$("$1/postgres" --version 2>/dev/null) || return 1
  [[ "${out}" =~ \(PostgreSQL\)\ ([0-9]+) ]] || return 1
  printf '%s\n' "${BASH_REMATCH[1]}"
}

# use_pg_bin FIELD DIR: checks that DIR, the value of FIELD (e.g. "run: --pg-bin"), holds the
# server binaries of a PostgreSQL the kit supports, and exports it as BB_PG_BIN; a usage error
# naming FIELD and DIR otherwise.
use_pg_bin() {
  local field="$1" dir="$2" prog major
  [[ -n "${dir}" ]] || usage_error "${field}: the directory is empty"
  [[ -d "${dir}" ]] || usage_error "${field}: '${dir}' is not a directory"
  dir=$(cd "${dir}" && pwd)
  for prog in postgres initdb pg_ctl; do
    [[ -x "${dir}/${prog}" ]] ||
      usage_error "${field}: '${dir}' has no ${prog} (name the bin directory of a PostgreSQL installation, e.g. /usr/lib/postgresql/17/bin)"
  done
  major=$(pg_bin_major "${dir}") ||
    usage_error "${field}: '${dir}/postgres --version' does not run or does not say its version"
  [[ ${major} -ge ${PG_MAJOR_MIN} && ${major} -le ${PG_MAJOR_MAX} ]] ||
    usage_error "${field}: '${dir}' is PostgreSQL ${major}; the kit supports ${PG_MAJOR_MIN} to ${PG_MAJOR_MAX}"
  export BB_PG_BIN="${dir}"
}

# The connection string of the database to use, in DB_CONNINFO: GIVEN, the value of FIELD,
# without its password (hide_password), else the embedded cluster's (started, and created on
# first use; it names its password file).
resolve_conninfo() {
  local field="$1" given="$2"
  if [[ -n "${given}" ]]; then
    hide_password "${field}" "${given}"
    return
  fi
  "${BB_ROOT}/controller/db" start >&2
  # The cluster's password is in its password file; a PGPASSWORD the user keeps for another
  # database would come first (libpq's order) and be refused.
  unset PGPASSWORD
  # shellcheck disable=SC2034 # read by the scripts that source this file
  DB_CONNINFO=$("${BB_ROOT}/controller/db" conninfo)
}

# The server's settings that are not at their defaults, one "name = value[ unit]" a line, for
# readme.txt. The querying session's own are not the server's and are left out, as the report
# leaves them out of db/settings.csv: source "client" (what psql or PGOPTIONS sent at connect:
# application_name, client_encoding, DateStyle...) and "session" (SET).
server_settings() {
  psql "$1" -XAt -F ' = ' -c \
    "select name, setting || coalesce(' ' || unit, '') from pg_settings
     where source not in ('default', 'override', 'client', 'session') order by name"
}
