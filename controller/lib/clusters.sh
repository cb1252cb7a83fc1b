# shellcheck shell=bash
# The embedded clusters of `bench overhead`'s variants (ours; --baseline's, in its kit's var/;
# each --days size's, in ${BB_DATA_DIR}/bench/days-D): sourced by controller/bench-overhead;
# needs lib/common.sh and BB_ROOT, BB_DATA_DIR.

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

# variant_data VARIANT BASELINE: the data directory of VARIANT's cluster (BASELINE: its kit).
variant_data() {
  case "$1" in
    baseline) printf '%s/var\n' "$2" ;;
    [0-9]*d) printf '%s/bench/days-%s\n' "${BB_DATA_DIR}" "${1%d}" ;;
    *) printf '%s\n' "${BB_DATA_DIR}" ;;
  esac
}

# variant_kit VARIANT BASELINE: the kit that runs VARIANT (BASELINE's for the baseline).
variant_kit() { if [[ "$1" == baseline ]]; then printf '%s\n' "$2"; else printf '%s\n' "${BB_ROOT}"; fi; }

# stop_other_clusters VARIANT BASELINE WORK VARIANTS...: stops every variant's cluster but
# VARIANT's, so that only the measured one runs.
stop_other_clusters() {
  local variant="$1" baseline="$2" work="$3" v data other
  shift 3
  data=$(variant_data "${variant}" "${baseline}")
  for v in "$@"; do
    other=$(variant_data "${v}" "${baseline}")
    [[ "${other}" == "${data}" ]] || stop_cluster "$(variant_kit "${v}" "${baseline}")" "${other}" "${work}"
  done
}

# stop_days_clusters: stops the --days sizes' clusters (at the end of the bench).
stop_days_clusters() {
  local d
  for d in "${BB_DATA_DIR}"/bench/days-*; do stop_cluster "${BB_ROOT}" "${d}" "${BB_DATA_DIR}/bench"; done
}
