# shellcheck shell=bash
# shellcheck disable=SC2034 # DISK_PROBLEM is read by the callers
# Room on disk for a load of the embedded cluster (issue 31), looked at before anything is
# loaded (and after it, controller/pgcluster checkpoint leaves no more WAL than min_wal_size).
# The database's size is estimated from its sizing, against the free
# space of the filesystem that holds the cluster: a load that cannot fit is refused at once,
# naming the sizes and the directory, instead of failing an hour later. (A database named by
# --db is on a server whose disk the kit cannot see.) Sourced by controller/build-db and
# controller/lib/database.sh.

# The database after a load (pg_database_size), per 1000 customers: what does not grow with the
# trade days, and what each initial trade day adds. Measured at 1000 customers: 1 071 MB with 20
# trade days, 13 595 MB with 300 (BENCHMARKS.md, "1000 customers x 300 initial trade days"),
# rounded up.
readonly DISK_MB_PER_1000=180
readonly DISK_MB_PER_1000_DAY=45
# A cluster holds more than its database: the WAL, up to max_wal_size while a run writes it at
# full speed (a load keeps less: pgcluster before-load), and, while indexes are built, their
# sort files where maintenance_work_mem does not hold them (none at 300 days on a 24 GB machine,
# where it is 1.5 GB; a margin for smaller ones).
readonly DISK_LOAD_PEAK_PERCENT=10

# disk_estimate_mb CUSTOMERS DAYS: the loaded database, in MB.
disk_estimate_mb() {
  local units=$((($1 + 999) / 1000))
  printf '%s\n' $((units * (DISK_MB_PER_1000 + DISK_MB_PER_1000_DAY * $2)))
}

# human_mb MB: "850 MB", "23.4 GB", "12.0 TB".
human_mb() {
  local mb="$1"
  if ((mb < 1024)); then
    printf '%d MB\n' "${mb}"
  elif ((mb < 1024 * 1024)); then
    printf '%d.%d GB\n' $((mb / 1024)) $((mb % 1024 * 10 / 1024))
  else
    printf '%d.%d TB\n' $((mb / 1048576)) $((mb % 1048576 * 10 / 1048576))
  fi
}

# embedded_room_for_load CONNINFO DIR CUSTOMERS DAYS REPLACES: returns 0 when the filesystem of
# DIR has room for the load into the cluster at CONNINFO, 1 (DISK_PROBLEM says why, with the sizes
# and DIR) when not. REPLACES 1: the load replaces the database first (--drop), which frees its
# size. Sizings that are not numbers are left to the loader to refuse.
DISK_PROBLEM=""
embedded_room_for_load() {
  local conninfo="$1" dir="$2" customer_count="$3" days="$4" replaces="$5"
  [[ "${customer_count}" =~ ^[0-9]{1,9}$ && "${days}" =~ ^[0-9]{1,5}$ ]] || return 0
  local max_wal_mb freed_mb=0 loaded peak free_mb
  max_wal_mb=$(psql "${conninfo}" -XAtc "select pg_size_bytes(current_setting('max_wal_size')) / 1048576") ||
    { DISK_PROBLEM="cannot read max_wal_size from the embedded cluster"; return 1; }
  [[ ${replaces} -eq 0 ]] ||
    freed_mb=$(psql "${conninfo}" -XAtc "select pg_database_size(current_database()) / 1048576") ||
    { DISK_PROBLEM="cannot read the size of the embedded database"; return 1; }
  loaded=$(disk_estimate_mb "${customer_count}" "${days}")
  peak=$((loaded + loaded * DISK_LOAD_PEAK_PERCENT / 100 + max_wal_mb))
  free_mb=$(df -k --output=avail -- "${dir}" | tail -n 1) || free_mb=""
  [[ "${free_mb}" =~ ^\ *[0-9]+$ ]] || { DISK_PROBLEM="cannot tell the free space of ${dir} (df)"; return 1; }
  free_mb=$((free_mb / 1024 + freed_mb))
  ((free_mb >= peak)) && return 0
  local freed=""
  ((freed_mb == 0)) || freed=", counting the $(human_mb "${freed_mb}") of the database it replaces"
  DISK_PROBLEM="a load of ${customer_count} customers and ${days} initial trade days needs about $(human_mb "${peak}") of disk (about $(human_mb "${loaded}") once loaded, a margin for the sort files of its index builds, and up to $(human_mb "${max_wal_mb}") of WAL, max_wal_size); ${dir} has $(human_mb "${free_mb}") free${freed}. Free space there, or keep the embedded cluster on a larger disk (BB_DATA_DIR=DIR)"
  return 1
}
