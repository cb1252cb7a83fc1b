# shellcheck shell=bash
# controller/run's live progress line: on a terminal redrawn every second, otherwise a line
# every 30 s. Sourced, never run; needs is_local (lib/hosts.sh), the components' C_HOST,
# METRICS (lib/components.sh), CE_PHASE (lib/interval.sh), and RAMP_UP and DURATION in seconds.
#
# The phase is the first customer emulator's as its mix log's markers show it (CE_PHASE:
# starting, ramp-up once Trade-Cleanup is done, measuring from START), and so is the clock:
# elapsed since the emulators started, of a total that is what the run does as far as it is
# known so far: the start and Trade-Cleanup as they went, the ramp-up until START (which the
# emulator marks when the ramp-up is over and every user has sent), then the measurement
# interval. TRTPS and the Trade-Result 90th percentile come from the market emulator's live
# metrics (README, "Live metrics"; METRICS, lib/components.sh): its Trade-Result response-time
# histogram, scraped once a second over bash's /dev/tcp, over the last 10 s: the rate of its
# count, and the 90th percentile interpolated inside its bucket as Prometheus' histogram_quantile
# does (so "~": the buckets are 0.5 ms to 60 s, about 2.5x apart). Shown as they are (nothing
# depends on them); a market emulator on another host has no endpoint here and shows none.
PROGRESS_TTY=0
[[ -t 1 ]] && PROGRESS_TTY=1
PROGRESS_RAMP=""     # elapsed seconds when the ramp-up was seen to begin
PROGRESS_START=""    # ... when START was seen
PROGRESS_PRINTED=-30 # when the last line went to a non-terminal
PROGRESS_MEE=""      # "TRTPS ..., TR p90 ..." from the market emulator's last scrapes
PROGRESS_SNAPS=()    # its last 11 s of scrapes: "ELAPSED CUMULATIVE-BUCKETS..." (+Inf last)
PROGRESS_BOUNDS=()   # the buckets' upper bounds in µs, +Inf left out
PROGRESS_LINES=()

# progress_fetch URL: the lines of the exposition at URL (http://HOST:PORT/PATH), in
# PROGRESS_LINES, by a plain HTTP GET over bash's /dev/tcp (no process started). Each line
# waits at most half a second (an emulator that is stopped still has its connections accepted
# by the kernel, and never answers); fails unless the exposition ends with its "# EOF".
progress_fetch() {
  local url="$1" hostport path fd line
  PROGRESS_LINES=()
  hostport="${url#http://}"
  path="/${hostport#*/}"
  hostport="${hostport%%/*}"
  { exec {fd}<>"/dev/tcp/${hostport%:*}/${hostport##*:}"; } 2>/dev/null || return 1
  printf 'GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n' "${path}" "${hostport}" >&"${fd}"
  while IFS= read -r -t 0.5 -u "${fd}" line; do
    line="${line%$'\r'}"
    PROGRESS_LINES+=("${line}")
    [[ "${line}" != "# EOF" ]] || break
  done
  exec {fd}<&-
  ((${#PROGRESS_LINES[@]} > 0)) && [[ "${PROGRESS_LINES[${#PROGRESS_LINES[@]} - 1]}" == "# EOF" ]]
}

# progress_mee_figures ELAPSED URL: scrapes the market emulator and sets PROGRESS_MEE from its
# Trade-Result histogram over the last 10 s (left as it was when the scrape fails).
progress_mee_figures() {
  local elapsed="$1" url="$2" line le whole frac p90
  local -a buckets=() bounds=() first now
  progress_fetch "${url}" || return 0
  for line in "${PROGRESS_LINES[@]}"; do
    [[ "${line}" =~ ^brokerbench_response_seconds_bucket\{type=\"TR\",le=\"([^\"]+)\"\}\ ([0-9]+)$ ]] || continue
    buckets+=("${BASH_REMATCH[2]}")
    le="${BASH_REMATCH[1]}"
    [[ "${le}" != "+Inf" ]] || continue
    whole="${le%%.*}" frac="${le#*.}000000"
    [[ "${le}" == *.* ]] || frac=000000
    bounds+=($((10#${whole} * 1000000 + 10#${frac:0:6})))
  done
  ((${#buckets[@]} > 0)) || return 0
  PROGRESS_BOUNDS=("${bounds[@]}")
  PROGRESS_SNAPS+=("${elapsed} ${buckets[*]}")
  while ((${#PROGRESS_SNAPS[@]} > 1)); do  # keep the oldest scrape at most 10 s old
    read -r -a first <<<"${PROGRESS_SNAPS[1]}"
    ((elapsed - first[0] >= 10)) || break
    PROGRESS_SNAPS=("${PROGRESS_SNAPS[@]:1}")
  done
  read -r -a first <<<"${PROGRESS_SNAPS[0]}"
  read -r -a now <<<"${PROGRESS_SNAPS[-1]}"
  local seconds=$((now[0] - first[0])) n=${#buckets[@]} count rank i below lo hi us
  ((seconds > 0)) || return 0
  count=$((now[n] - first[n]))
  PROGRESS_MEE="TRTPS $((count / seconds)).$((count * 10 / seconds % 10)), TR p90 -"
  ((count > 0)) || return 0
  rank=$(((9 * count + 9) / 10))  # the 90th percentile's rank, nearest rank
  below=0
  for ((i = 1; i <= n; i++)); do
    ((now[i] - first[i] < rank)) || break
    below=$((now[i] - first[i]))
  done
  if ((i > ${#PROGRESS_BOUNDS[@]})); then
    PROGRESS_MEE="${PROGRESS_MEE% -} > $((PROGRESS_BOUNDS[-1] / 1000000)) s"
    return 0
  fi
  lo=0
  ((i == 1)) || lo=${PROGRESS_BOUNDS[i - 2]}
  hi=${PROGRESS_BOUNDS[i - 1]}
  us=$((lo + (hi - lo) * (rank - below) / (now[i] - first[i] - below)))
  if ((us < 1000000)); then
    printf -v p90 '~%d.%d ms' $((us / 1000)) $((us / 100 % 10))
  else
    printf -v p90 '~%d.%02d s' $((us / 1000000)) $((us / 10000 % 100))
  fi
  PROGRESS_MEE="${PROGRESS_MEE% -} ${p90}"
}

# progress ELAPSED MEE: ELAPSED seconds since the customer emulators started; MEE is the
# market emulator's index.
progress() {
  local elapsed="$1" mee="$2" total line entry
  [[ "${CE_PHASE}" == starting ]] || PROGRESS_RAMP="${PROGRESS_RAMP:-${elapsed}}"
  [[ "${CE_PHASE}" != measuring && "${CE_PHASE}" != over ]] || PROGRESS_START="${PROGRESS_START:-${elapsed}}"
  if is_local "${C_HOST[mee]}"; then
    for entry in "${METRICS[@]}"; do
      [[ "${entry}" != mee=* ]] || progress_mee_figures "${elapsed}" "${entry#mee=}"
    done
  fi
  if [[ -n "${PROGRESS_START}" ]]; then
    total=$((PROGRESS_START + DURATION))
  elif [[ -n "${PROGRESS_RAMP}" ]]; then
    total=$((PROGRESS_RAMP + RAMP_UP + DURATION))
  else
    total=$((elapsed + RAMP_UP + DURATION))
  fi
  printf -v line '[%d:%02d / %d:%02d] %s; %s' $((elapsed / 60)) $((elapsed % 60)) \
    $((total / 60)) $((total % 60)) "${CE_PHASE}" "${PROGRESS_MEE:-TRTPS -}"
  if [[ ${PROGRESS_TTY} -eq 1 ]]; then
    printf '\r\033[K    %s' "${line:0:$((${COLUMNS:-100} - 5))}"
  elif ((elapsed - PROGRESS_PRINTED >= 30)); then
    PROGRESS_PRINTED=${elapsed}
    printf '    %s\n' "${line}"
  fi
}
