#!/usr/bin/env bash
# controller/sweep's options and what it passes to each run (issue 38 items 2 and 5), with a
# stand-in for controller/run: --db-memory with two caps or more makes a sweep over memory (one
# run per cap, at the --users and --pacing given), one cap goes to every run of the sweep over
# users, a bad cap is named by its place in the list, and options that belong to the other
# sweep are refused. The stand-in writes each run's results.json; the real bb-sweep-report
# makes the sweep's report from them.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=tests/controller/lib/check.sh
source "${root}/tests/controller/lib/check.sh"
tmp="$(mktemp -d /tmp/bbsweep.XXXXXX)"
trap 'rm -rf -- "${tmp}"' EXIT

# A kit whose controller/run is the stand-in: BB_ROOT points at it, the post-processor is the
# real one.
fake="${tmp}/kit"
mkdir -p "${fake}/controller"
ln -s "${root}/postprocess" "${fake}/postprocess"
cat >"${fake}/controller/run" <<'RUN'
#!/usr/bin/env bash
# Records its arguments, makes a numbered results directory under --results-dir with a
# results.json: TRTPS 2 at every cap and user count (so a sweep over users stops after three
# runs), fewer the smaller the cap; exits 1 after writing it when --db-memory is $FAIL_CAP, and
# before making anything when it is $EARLY_CAP.
set -euo pipefail
printf '%s\n' "$*" >>"${RUN_LOG}"
parent="" cap="" users=10
while [[ $# -gt 0 ]]; do
  case "$1" in
    --results-dir) parent="$2" ;;
    --db-memory) cap="$2" ;;
    --users) users="$2" ;;
  esac
  shift
done
[[ "${cap}" != "${EARLY_CAP:-none}" ]] || { echo "no memory cgroup" >&2; exit 1; }
mkdir -p "${parent}"
n=$(find "${parent}" -mindepth 1 -maxdepth 1 -type d | wc -l)
dir="${parent}/$(printf '%04d' $((n + 1)))"
mkdir -p "${dir}"
ln -sfn "${dir##*/}" "${parent}/latest"
pct="${cap%\%}"
[[ "${pct}" =~ ^[0-9]+$ ]] || pct=100
cat >"${dir}/results.json" <<JSON
{"settings":{"users":${users},"pacing_s":0.5,"db_memory":"${cap:-none}",
 "db_memory_bytes":$((pct * 10485760)),"db_memory_database_bytes":1048576000,
 "db_memory_peak_bytes":$((pct * 10485760)),"db_memory_oom_kills":0},
 "trtps":{"measured_tpse":$((pct > 50 ? 2 : 1)).5},
 "transactions":{"TR":{"response_time_p90_ms":$((1000 / pct))}},
 "verdict":{"text":"VALID","reasons":[]},
 "device_io":{"hosts":[{"devices":[{"role":"data","reads_per_txn":$((100 / pct)),"reads_per_s":$((1000 / pct))}]}],
              "postgres":{"hit":{"hit_ratio_pct":9${pct:0:1}}}}}
JSON
[[ "${cap}" != "${FAIL_CAP:-none}" ]] || exit 1
echo "run done"
RUN
chmod +x "${fake}/controller/run"

export RUN_LOG="${tmp}/runs.log"
sweep() { BB_ROOT="${fake}" BB_DATA_DIR="${tmp}/data" "${root}/controller/sweep" "$@"; }
# usage_error ARGS...: the sweep's message when it refuses ARGS with exit 2 before any run.
usage_error() {
  local rc=0
  : >"${RUN_LOG}"
  sweep "$@" >/dev/null 2>"${tmp}/err" || rc=$?
  [[ ${rc} -eq 2 && ! -s "${RUN_LOG}" ]] || { printf 'exit %s, runs: %s\n' "${rc}" "$(cat "${RUN_LOG}")" >&2; return 1; }
  cat "${tmp}/err"
}
says() { grep -qF -- "$2" <(usage_error "${@:3}") || { printf '%s: not said: %s\n' "$1" "$2" >&2; return 1; }; }

# Bad caps, each named with its place in the list; options of the other sweep refused.
check "a bad cap is named with its place" \
  says "" "--db-memory: '8' (cap 2 of '100% 8') is not a size of at least 64 MB" --db-memory "100% 8"
check "  also between commas" says "" "'abc' (cap 2 of '50%,abc, 8%')" --db-memory "50%,abc, 8%"
check "  a cap under 64 MB" says "" "'32M' (cap 3 of '1G 512M 32M')" --db-memory "1G 512M 32M"
check "  over 100 %" says "" "'150%' (cap 1 of '150% 50%')" --db-memory "150% 50%"
check "  the only cap of a sweep over users too" says "" "'8' (cap 1 of '8')" --db-memory 8
check "an empty list" says "" "--db-memory: ' , ' holds no cap" --db-memory " , "
check "no value" says "" "--db-memory needs a value" --db-memory
check "--threshold with a sweep over memory" \
  says "" "--threshold belongs to the sweep over users" --db-memory "100% 8%" --threshold 3
check "--max-users with a sweep over memory" \
  says "" "--max-users belongs to the sweep over users" --max-users 8 --db-memory "100% 8%"
check "--users without one" says "" "--users is set by the sweep over users itself" --users 4
check "--pacing with one cap" says "" "--pacing is set by the sweep over users itself" --pacing 0 --db-memory 8%
check "a bad --users" says "" "--users: 'x' is not a whole number" --users x --db-memory "1G 2G"
check "a bad --pacing" says "" "--pacing: 'fast' is not a number of seconds" --pacing fast
check "--db-memory with --db" \
  says "" "--db-memory caps the embedded cluster" --db "host=db1" --db-memory "100% 8%"
check "--results-dir" says "" "--results-dir is set by the sweep itself" --results-dir /tmp

# A sweep over memory: one run per cap in the order given, at the users and pacing given, the
# run options passed on.
: >"${RUN_LOG}"
check "a sweep over memory runs" sweep --db-memory "100% 25%" --db-memory 8% --users 20 --pacing 0 \
  --set work_mem=8MB --duration 1m >"${tmp}/out" 2>&1
check "  three runs" test "$(wc -l <"${RUN_LOG}")" -eq 3
check "  the first with --db-memory 100%, --users 20, --pacing 0, --set and --duration" \
  grep -qE -- "^--duration 2m --ramp-up 10s --set work_mem=8MB --duration 1m --users 20 --pacing 0 --db-memory 100% --results-dir ${tmp}/data/sweeps/0001/runs$" "${RUN_LOG}"
check "  then 25 %, then 8 %" test "$(sed 's/.*--db-memory \([^ ]*\) .*/\1/' "${RUN_LOG}" | tr '\n' ' ')" = "100% 25% 8% "
check "  runs.txt: cap and results directory" \
  test "$(cat "${tmp}/data/sweeps/0001/runs.txt")" = "$(printf '100%%\t%s\n25%%\t%s\n8%%\t%s' \
    "${tmp}/data/sweeps/0001/runs/0001" "${tmp}/data/sweeps/0001/runs/0002" "${tmp}/data/sweeps/0001/runs/0003")"
check "  each run's figures on the console" \
  grep -qF "    25%: TRTPS 1.50, TR p90 40.0 ms, device reads 4.00/txn, hit ratio 92.00 %, peak 250.0 MiB, 0 OOM kills, errors 0, VALID" "${tmp}/out"
check "  sweep.txt, a row per cap" \
  grep -qE '^8% +80\.0 +8\.0 % +1\.50 +125\.0 +12\.00 +125\.0 +98\.00 +80\.0 +0 +0 +VALID ' "${tmp}/data/sweeps/0001/sweep.txt"
check "  sweep.png" is_png "${tmp}/data/sweeps/0001/sweep.png"

# A run that fails after it was measured is reported with the others, and the sweep fails.
: >"${RUN_LOG}"
rc=0
FAIL_CAP=25% sweep --db-memory "100% 25% 8%" >"${tmp}/out" 2>&1 || rc=$?
check "a run failing after its measurement: the sweep goes on" test "$(wc -l <"${RUN_LOG}")" -eq 3
check "  and exits 1" test "${rc}" -eq 1
check "  saying which" grep -qF "sweep: the runs with --db-memory 25% failed" "${tmp}/out"
check "  reported with the others" grep -qE '^25% +250\.0 ' "${tmp}/data/sweeps/0002/sweep.txt"
# One that fails before it was measured stops the sweep.
: >"${RUN_LOG}"
rc=0
EARLY_CAP=25% sweep --db-memory "100% 25% 8%" >"${tmp}/out" 2>&1 || rc=$?
check "a run failing before its measurement stops the sweep" test "$(wc -l <"${RUN_LOG}")" -eq 2
check "  with exit 1, naming it" grep -qF "the run with --db-memory 25% failed before it was measured" "${tmp}/out"

# One cap: a sweep over users, the cap passed to every run.
: >"${RUN_LOG}"
check "a sweep over users with one cap" sweep --db-memory 8% --max-users 4 >"${tmp}/out" 2>&1
check "  users 1, 2, 4, each with --db-memory 8% and pacing 0" \
  test "$(sed 's/.*--db-memory 8% --users \([0-9]*\) --pacing 0 .*/\1/' "${RUN_LOG}" | tr '\n' ' ')" = "1 2 4 "
check "  runs.txt by users" grep -qE "^4	${tmp}/data/sweeps/0004/runs/0003$" "${tmp}/data/sweeps/0004/runs.txt"
: >"${RUN_LOG}"
check "a sweep over users without one" sweep --max-users 2 --set work_mem=8MB >"${tmp}/out" 2>&1
check "  no --db-memory, --set passed on" \
  test "$(cat "${RUN_LOG}")" = "$(printf -- '--duration 2m --ramp-up 10s --set work_mem=8MB --users %s --pacing 0 --results-dir %s/data/sweeps/0005/runs\n' 1 "${tmp}" 2 "${tmp}")"

check_summary
