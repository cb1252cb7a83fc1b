# shellcheck shell=bash
# The embedded clusters of `bench overhead`'s two kits (ours and --baseline's, each with its own
# var/): sourced by controller/bench-overhead; needs lib/common.sh and BB_ROOT, BB_DATA_DIR.

# stop_cluster KIT DATA WORK: stops the embedded cluster KIT keeps in DATA, if there is one.
stop_cluster() { [[ ! -d "$2/pg" ]] || BB_DATA_DIR="$2" "$1/brokerbench" db stop >>"$3/db-stop.log" 2>&1 || true; }

# fresh_databases BASELINE WORK: both kits' clusters loaded afresh at the run's default size,
# one at a time, so that both variants start from the same state: the first A/B of issue 18
# had PostgreSQL at 1.09x the CPU per transaction on the cluster that had taken more runs.
fresh_databases() {
  local baseline="$1" work="$2" log="$2/build-db.log"
  say "==> a fresh database for each kit" >&2
  stop_cluster "${baseline}" "${baseline}/var" "${work}"
  "${BB_ROOT}/brokerbench" build-db --drop --customers 1000 --initial-trade-days 20 \
    >>"${log}" 2>&1 || die "bench overhead: loading our database failed (${log})"
  stop_cluster "${BB_ROOT}" "${BB_DATA_DIR}" "${work}"
  BB_BUILD_DIR="$(default_build_dir "${baseline}")" BB_DATA_DIR="${baseline}/var" \
    "${baseline}/brokerbench" build-db --drop --customers 1000 --initial-trade-days 20 \
    >>"${log}" 2>&1 || die "bench overhead: loading the baseline's failed (${log})"
}
