#!/usr/bin/env bash
# How `./brokerbench run` loads an empty database, with no database, no build and no load:
# stand-ins for psql, bb-loader, build-db and the kit's build (found through PATH, BB_ROOT and
# BB_BUILD_DIR) write down how they were called, and the load fails on purpose, so the run
# stops right after deciding. Checks:
#   1. without --config, run loads with bb-loader on this machine (--db, the sizing);
#   2. with --config, it loads through build-db --config with the same file (which loads from
#      the hosts of its [loader] sections), the database, the sizing with the command line's
#      overrides, and its logs under the results directory; a failed load fails the run;
#   3. a database holding another load is refused with the build-db --config command that
#      reloads it, and nothing is loaded.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=tests/controller/lib/check.sh
source "${root}/tests/controller/lib/check.sh"
data="$(mktemp -d /tmp/bbrunload.XXXXXX)"
trap 'rm -rf -- "${data}"' EXIT

calls="${data}/calls"     # one line per call of a loader stand-in
loaded="${data}/loaded"   # the database's load record; none while absent
mkdir -p "${data}/kit/controller" "${data}/build/loader" "${data}/build/conninfo" "${data}/build/spec" "${data}/bin"
# stand_in PATH BODY: an executable bash script running BODY.
stand_in() {
  printf '#!/usr/bin/env bash\n%s\n' "$2" >"$1"
  chmod +x "$1"
}
stand_in "${data}/kit/controller/build" 'exit 0'
stand_in "${data}/kit/controller/version" 'echo "brokerbench 0123456 stand-in"'
stand_in "${data}/kit/controller/build-db" "printf 'build-db %s\n' \"\$*\" >>'${calls}'; echo 'load failed'; exit 3"
# bb-conninfo redact|split: these connection strings hold no password, so both echo them.
stand_in "${data}/build/conninfo/bb-conninfo" 'cat'
stand_in "${data}/build/spec/bb-spec" 'echo 0.500'  # the auto pacing
stand_in "${data}/build/loader/bb-loader" "printf 'bb-loader %s\n' \"\$*\" >>'${calls}'; echo 'load failed'; exit 3"
# psql: every query answers; the load's tables (33 and the record, or none) while ${loaded}
# holds the record (customers, scale factor, trade days, complete, started, rows), or not.
stand_in "${data}/bin/psql" "case \"\$*\" in
  *to_regclass*) if [[ -f '${loaded}' ]]; then echo '33 t'; else echo '0 f'; fi ;;
  *brokerbench_load_info*) if [[ -f '${loaded}' ]]; then cat '${loaded}'; else echo 'ERROR: relation does not exist' >&2; exit 1; fi ;;
  *current_database*) echo bb ;;
  *) echo 1 ;;
esac"

# run [ARGS...]: the run with the stand-ins; its output in ${out}, its exit status in ${rc}.
run() {
  out="${data}/run$((++runs)).out"
  : >"${calls}"
  rc=0
  PATH="${data}/bin:${PATH}" BB_ROOT="${data}/kit" BB_BUILD_DIR="${data}/build" \
    BB_DATA_DIR="${data}/var" "${root}/controller/run" "$@" >"${out}" 2>&1 || rc=$?
  cat "${out}"
  dir="${data}/var/results/$(printf '%04d' "${runs}")"
}
runs=0
db="host=/nowhere dbname=bb"
cat >"${data}/two-loaders.conf" <<CONFIG
[test]
customers = 5000
initial_trade_days = 10

[database]
conninfo = ${db}

[customer_emulator]
host = local
users = 3

[loader]
host = l1

[loader]
host = l2
CONFIG

# --- 1. no configuration: bb-loader on this machine -------------------------------------------
run --db "${db}" --customers 2000
check "the run fails when the load fails (exit 1)" test "${rc}" -eq 1
check "... naming the loader and its exit status" has_line "${out}" 'run failed: the loader failed \(exit 3\)'
check "... and its log, which has the loader's output" has_line "${dir}/db/loader.log" '^load failed$'
check "without --config, bb-loader loads it" \
  has_line "${calls}" "^bb-loader --db ${db} --customers 2000 --scale-factor 500 --initial-trade-days 20 --report ${dir}/db/load.json$"
check "... and build-db is not called" lacks_line "${calls}" '^build-db'

# --- 2. a configuration: build-db --config with the same file ---------------------------------
run --config "${data}/two-loaders.conf" --initial-trade-days 12
check "with --config, build-db --config loads it, with the file, the database, the sizing of [test] and the command line, and its logs in the results directory" \
  has_line "${calls}" "^build-db --config ${data}/two-loaders.conf --db ${db} --customers 5000 --scale-factor 500 --initial-trade-days 12 --log-dir ${dir}/db/load$"
check "... and bb-loader is not called here" lacks_line "${calls}" '^bb-loader'
check "... it says so" has_line "${out}" 'loading 5000 customers with 12 initial trade days \(build-db --config, logs in db/load/; log: db/loader.log\)'
check "a failed build-db fails the run (exit 1)" test "${rc}" -eq 1
check "... naming the exit status" has_line "${out}" 'run failed: the loader failed \(exit 3\)'

# --- 3. another load: refused, with the command that reloads it ---------------------------------
echo "5000 500 10 t 2026-11-26_10:00:00_UTC 1" >"${loaded}"
run --config "${data}/two-loaders.conf" --initial-trade-days 12
check "a database holding another load fails the run (exit 1)" test "${rc}" -eq 1
check "... naming the configuration and the load it holds" \
  has_line "${out}" "the database named by \[database\] in ${data}/two-loaders.conf or --db cannot be used: it holds another load \(customers, scale factor, trade days, complete: 5000 500 10 t\)"
check "... and the build-db --config command that reloads it" \
  has_line "${out}" "reload it with: ./brokerbench build-db --db '${db}' --customers 5000 --scale-factor 500 --initial-trade-days 12 --drop --config '${data}/two-loaders.conf'$"
check "... and loads nothing" test ! -s "${calls}"

check_summary
