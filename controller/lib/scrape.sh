# shellcheck shell=bash
# scrape_endpoints: a Prometheus stand-in for `bench overhead --scrape`.

# scrape_endpoints RUNS SINCE RUN_PID OUT: fetches, once a second, every live-metrics URL of
# the run whose results directory appears under RUNS after the file SINCE was made (its
# run.conf's metrics= line, controller/run), each until it closes (refused after it has
# answered: its emulator has ended) or the run ends; appends each answer's HTTP status (000:
# none) to OUT.
scrape_endpoints() {
  local runs="$1" since="$2" run_pid="$3" out="$4" conf="" url code
  local -a urls=()
  local -A answered=() closed=()
  : >"${out}"
  while kill -0 "${run_pid}" 2>/dev/null; do
    if [[ ${#urls[@]} -eq 0 ]]; then
      conf=$(find "${runs}" -mindepth 2 -maxdepth 2 -name run.conf -newer "${since}" -print -quit 2>/dev/null)
      [[ -z "${conf}" ]] || read -r -a urls < <(sed -n 's/^metrics=//p' "${conf}")
      urls=("${urls[@]#*=}")  # NAME=URL -> URL
    fi
    for url in "${urls[@]}"; do
      [[ -z "${closed[${url}]:-}" ]] || continue
      code=$(curl -s -m 2 -o /dev/null -w '%{http_code}' "${url}" || true)
      if [[ "${code}" == 000 && -n "${answered[${url}]:-}" ]]; then
        closed["${url}"]=1
        continue
      fi
      [[ "${code}" != 200 ]] || answered["${url}"]=1
      printf '%s\n' "${code}" >>"${out}"
    done
    ((${#urls[@]} == 0 || ${#closed[@]} < ${#urls[@]})) || break
    sleep 1
  done
}
