# shellcheck shell=bash
# scrape_endpoints: a Prometheus stand-in for `bench overhead --scrape`.

# Fetches every live-metrics URL that run's LOG prints, once a second, until the run stops
# its emulators (its "==> stopping" line) or ends; appends each answer's HTTP status (000:
# none) to OUT.
scrape_endpoints() {
  local log="$1" run_pid="$2" out="$3" line="" url
  local -a urls=()
  : >"${out}"
  while kill -0 "${run_pid}" 2>/dev/null && ! grep -q '^==> stopping' "${log}" 2>/dev/null; do
    if [[ ${#urls[@]} -eq 0 ]]; then
      line=$(grep -m 1 'live metrics (OpenMetrics' "${log}" 2>/dev/null || true)
      [[ -z "${line}" ]] || mapfile -t urls < <(grep -o 'http://[^ ]*' <<<"${line}")
    fi
    for url in "${urls[@]}"; do
      curl -s -m 2 -o /dev/null -w '%{http_code}\n' "${url}" >>"${out}" || true
    done
    sleep 1
  done
}
