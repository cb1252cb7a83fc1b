#!/usr/bin/env bash
# A load of the embedded cluster (issue 31), as a user runs it, in a data directory of its own:
#   1. a load the disk cannot hold is refused before anything is loaded, by build-db and by run,
#      naming the sizes and the directory (a sizing far beyond any disk: 5 million customers);
#   2. build-db loads the smallest database with max_wal_size lowered to min_wal_size and then
#      checkpoints (pgcluster before-load, after-load): the WAL left is at most min_wal_size
#      (the load's would otherwise stay, up to max_wal_size), and max_wal_size is back to the
#      cluster's setting, also when a load was interrupted. About a minute and a half.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=tests/controller/lib/check.sh
source "${root}/tests/controller/lib/check.sh"
# shellcheck source=tests/controller/lib/data_dir.sh
source "${root}/tests/controller/lib/data_dir.sh"
own_data_dir "bbloadtest"

bb_psql() { "${root}/brokerbench" db psql -XAtc "$1"; }
# fails_saying PATTERN COMMAND...: exits 1, saying PATTERN on stderr (kept in ${data}/err).
fails_saying() {
  local pattern="$1" rc=0
  shift
  "$@" >"${data}/out" 2>"${data}/err" || rc=$?
  [[ ${rc} -eq 1 ]] && grep -qE -- "${pattern}" "${data}/err"
}
no_tables() { test "$(bb_psql "select count(*) from pg_tables where schemaname = 'public'")" = 0; }
too_big="a load of 5000000 customers and 300 initial trade days needs about [0-9.]+ TB of disk \(about [0-9.]+ TB once loaded, a margin for the sort files of its index builds, and up to 8.0 GB of WAL, max_wal_size\); ${data}/pg has [0-9.]+ [MGT]B free\. Free space there, or keep the embedded cluster on a larger disk \(BB_DATA_DIR=DIR\)"

# --- 1. refused before loading ----------------------------------------------------------------
check "build-db refuses a load the disk cannot hold, naming the sizes and the directory" \
  fails_saying "build-db: ${too_big}" \
  "${root}/brokerbench" build-db --customers 5000000 --initial-trade-days 300
check "... and nothing was loaded" no_tables
check "run refuses it too, before loading" \
  fails_saying "run failed: run: ${too_big}" \
  "${root}/brokerbench" run --customers 5000000 --initial-trade-days 300 --duration 1m --ramp-up 0s
check "... and nothing was loaded" no_tables

# --- 2. the checkpoint after a load -------------------------------------------------------------
wal_bytes() { bb_psql "select sum(size) from pg_ls_waldir()"; }
# A 20-day load writes about 800 MB of WAL: with a max_wal_size below that, its checkpoints keep
# segments for reuse as a 300-day load's do with 8 GB, and with a lower min_wal_size the
# difference shows (without before-load and after-load, about 500 MB are left).
printf "max_wal_size = 512MB\nmin_wal_size = 64MB\n" >>"${data}/pg/data/brokerbench.conf"
bb_psql "select pg_reload_conf()" >/dev/null
check "build-db loads 1000 customers with 20 trade days" \
  "${root}/brokerbench" build-db --customers 1000 --initial-trade-days 20
min=$(bb_psql "select pg_size_bytes(current_setting('min_wal_size'))")
wal=$(wal_bytes)
printf 'WAL after the load: %s bytes (min_wal_size %s)\n' "${wal}" "${min}"
# The segment being written and the one before the checkpoint's redo may come on top.
check "the WAL left after the load is at most min_wal_size" test "${wal}" -le $((min + 2 * 16 * 1048576))
check "max_wal_size is the cluster's setting again" test "$(bb_psql 'show max_wal_size')" = 512MB
check "... and postgresql.auto.conf holds no setting of it" \
  lacks_line "${data}/pg/data/postgresql.auto.conf" max_wal_size
check "... nor is the load marked as running" test ! -e "${data}/pg/loading"


# A load interrupted between before-load and after-load: the next start restores max_wal_size.
"${root}/controller/pgcluster" before-load "${data}/pg"
check "while a load runs, max_wal_size is min_wal_size" test "$(bb_psql 'show max_wal_size')" = 64MB
check "a start after an interrupted load says so" \
  has_line <("${root}/brokerbench" db start 2>&1) "a load of the cluster in '${data}/pg' was interrupted"
check "... and max_wal_size is the cluster's setting again" test "$(bb_psql 'show max_wal_size')" = 512MB
# A max_wal_size of the user's own (ALTER SYSTEM) is what a load puts back.
bb_psql "alter system set max_wal_size = '300MB'" >/dev/null
bb_psql "select pg_reload_conf()" >/dev/null
"${root}/controller/pgcluster" before-load "${data}/pg"
"${root}/controller/pgcluster" after-load "${data}/pg"
check "a max_wal_size set with ALTER SYSTEM is kept across a load" test "$(bb_psql 'show max_wal_size')" = 300MB

check_summary
