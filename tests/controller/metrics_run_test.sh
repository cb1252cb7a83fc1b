#!/usr/bin/env bash
# End to end: the live metrics of a whole `./brokerbench run` (README, "Live metrics"), on an
# embedded cluster of its own (a private data directory):
#   1. the run prints the endpoints of the market emulator and the customer emulator when they
#      start, and run.conf records the same;
#   2. scraped during the run (a plain HTTP/1.1 GET over bash's /dev/tcp: no client to
#      install), each answers 200 with the OpenMetrics content type, ends with "# EOF", has the
#      families the README lists, counters that never go down between scrapes, and the
#      customer emulator's phase reaches "measuring";
#   3. once the run is over, the endpoints are closed, and no scrape counted more rows of a type
#      than the emulator's mix log holds in the end.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=tests/controller/lib/check.sh
source "${root}/tests/controller/lib/check.sh"
data="$(mktemp -d /tmp/bbmetricstest.XXXXXX)"
chmod 0711 "${data}"
export BB_DATA_DIR="${data}"
results="${data}/results"
run_pid=""

cleanup() {
  [[ -z "${run_pid}" ]] || kill "${run_pid}" 2>/dev/null || true
  [[ -z "${run_pid}" ]] || wait "${run_pid}" 2>/dev/null || true
  "${root}/brokerbench" db destroy --yes >/dev/null 2>&1 || true
  rm -rf -- "${data}"
}
trap cleanup EXIT

# scrape URL FILE: GET URL (http://127.0.0.1:PORT/PATH) into FILE (status line, headers, body,
# as sent); fails when nothing answers.
scrape() {
  local url="$1" file="$2" hostport path
  hostport="${url#http://}"
  path="/${hostport#*/}"
  hostport="${hostport%%/*}"
  exec 3<>"/dev/tcp/${hostport%:*}/${hostport##*:}" || return 1
  printf 'GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n' "${path}" "${hostport}" >&3
  timeout 10 cat <&3 >"${file}" || true
  exec 3<&-
  [[ -s "${file}" ]]
}
body() { sed '1,/^\r$/d' "$1"; }
# went_down PREV FILE: the counter samples (_total, and a histogram's _bucket, _count, _sum)
# of FILE whose value is below the same sample's in PREV; fails when there is one.
went_down() {
  awk '$1 !~ /(_total|_bucket|_count|_sum)($|\{)/ { next }
       NR == FNR { v[$1] = $2; next }
       ($1 in v) && $2 + 0 < v[$1] + 0 { print; bad = 1 } END { exit bad }' \
    <(body "$1") <(body "$2")
}
# closed PORT: nothing listens on 127.0.0.1:PORT.
closed() { ! bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null; }

# --- 1. the endpoints, printed and recorded ------------------------------------------------------
out="${data}/run.out"
"${root}/brokerbench" run --duration 60s --ramp-up 20s --users 5 >"${out}" 2>&1 &
run_pid=$!
line=""
for ((i = 0; i < 1800; i++)); do  # the build and the load come first: up to 30 minutes
  line=$(grep -m 1 'live metrics (OpenMetrics' "${out}" || true)
  [[ -z "${line}" ]] || break
  kill -0 "${run_pid}" 2>/dev/null || break
  sleep 1
done
printf 'printed: %s\n' "${line}"
check "the run prints its live-metrics endpoints" test -n "${line}"
mee_url=$(grep -oE 'mee=http://127\.0\.0\.1:[0-9]+/metrics' <<<"${line}" | cut -d= -f2- || true)
ce_url=$(grep -oE 'ce1=http://127\.0\.0\.1:[0-9]+/metrics' <<<"${line}" | cut -d= -f2- || true)
check "... the market emulator's" test -n "${mee_url}"
check "... and the customer emulator's" test -n "${ce_url}"
dir="${results}/0001"
check "run.conf records them" has_line "${dir}/run.conf" "^metrics=mee=${mee_url} ce1=${ce_url}\$"

# --- 2. scraped during the run ----------------------------------------------------------------
measuring=0
n=0
while kill -0 "${run_pid}" 2>/dev/null && ((n < 40)); do
  for who in ce mee; do
    url="${ce_url}"
    [[ "${who}" == ce ]] || url="${mee_url}"
    [[ -n "${url}" ]] || continue
    file="${data}/${who}.${n}"
    scrape "${url}" "${file}" || continue
    check "${who} scrape ${n}: 200" has_line "${file}" '^HTTP/1\.1 200 OK'
    check "${who} scrape ${n}: OpenMetrics" \
      has_line "${file}" '^Content-Type: application/openmetrics-text; version=1\.0\.0; charset=utf-8'
    check "${who} scrape ${n}: # EOF last" test "$(body "${file}" | tail -n 1)" == "# EOF"
    for family in brokerbench_transactions brokerbench_outcomes brokerbench_response_seconds \
      brokerbench_in_flight brokerbench_phase; do
      check "${who} scrape ${n}: ${family}" has_line <(body "${file}") "^# TYPE ${family} "
    done
    [[ "${who}" == ce ]] || check "mee scrape ${n}: Trade-Results sent" \
      has_line <(body "${file}") '^brokerbench_mee_trade_results_sent_total [0-9]+$'
    if ((n > 0)) && [[ -f "${data}/${who}.$((n - 1))" ]]; then
      check "${who} scrape ${n}: no counter went down" went_down "${data}/${who}.$((n - 1))" "${file}"
    fi
    if [[ "${who}" == ce ]] && body "${file}" | grep -qx 'brokerbench_phase{brokerbench_phase="measuring"} 1'; then
      measuring=1
    fi
  done
  n=$((n + 1))
  sleep 3
done
check "scraped during the run" test "${n}" -ge 5
check "the customer emulator's phase reached measuring" test "${measuring}" -eq 1

# --- 3. after the run -------------------------------------------------------------------------
rc=0
wait "${run_pid}" || rc=$?
run_pid=""
check "the run exits 0" test "${rc}" -eq 0
for url in "${ce_url}" "${mee_url}"; do
  port="${url##*:}"
  port="${port%%/*}"
  [[ -z "${port}" ]] || check "the endpoint ${url} is closed" closed "${port}"
done
last=$(find "${data}" -maxdepth 1 -name 'ce.*' -printf '%f\n' | sort -t. -k2 -n | tail -n 1)
if [[ -n "${last}" ]]; then
  for code in BV CP MW SD TL TO TS TU; do
    scraped=$(body "${data}/${last}" | sed -n "s/^brokerbench_transactions_total{type=\"${code}\"} //p")
    logged=$(awk -F, -v c="${code}" '$2 == c { n++ } END { print n + 0 }' "${dir}"/ce/*/mix-ce-*.csv)
    check "${code}: the last scrape (${scraped}) counted no more than the mix log has (${logged})" \
      test "${scraped:-x}" -le "${logged}"
  done
fi

check_summary
