# shellcheck shell=bash
# controller/run's live progress line: on a terminal redrawn every second, otherwise a line
# every 30 s. Sourced, never run; needs is_local (lib/hosts.sh), the components' C_HOST and
# C_LOG, CE_PHASE (lib/interval.sh), and RAMP_UP and DURATION in seconds.
#
# The phase is the first customer emulator's as its mix log's markers show it (CE_PHASE:
# starting, ramp-up once Trade-Cleanup is done, measuring from START), and so is the clock:
# elapsed since the emulators started, of a total that is what the run does as far as it is
# known so far: the start and Trade-Cleanup as they went, the ramp-up until START (which the
# emulator marks when the ramp-up is over and every user has sent), then the measurement
# interval. TRTPS and the Trade-Result 90th percentile are those of the market emulator's
# latest summary line (its last 10 s; tests/mee_test.cpp checks the format), shown as they are
# (nothing depends on them); a market emulator on another host shows none.
PROGRESS_TTY=0
[[ -t 1 ]] && PROGRESS_TTY=1
PROGRESS_RAMP=""     # elapsed seconds when the ramp-up was seen to begin
PROGRESS_START=""    # ... when START was seen
PROGRESS_PRINTED=-30 # when the last line went to a non-terminal
PROGRESS_MEE=""      # the market emulator's last "TR/s ..., TR p90 ..." words
declare -A PROGRESS_FD=() PROGRESS_PART=()
PROGRESS_LINES=()

# progress_read FILE: the whole lines FILE has gained since the last call, in PROGRESS_LINES.
# The file stays open on a descriptor, so each call reads on from where the last one ended:
# no process is started and nothing is read twice (this runs once a second on the database's
# host). A last line without its newline yet waits for the next call.
progress_read() {
  local file="$1" fd line
  PROGRESS_LINES=()
  fd="${PROGRESS_FD[${file}]:-}"
  if [[ -z "${fd}" ]]; then
    [[ -r "${file}" ]] || return 0
    exec {fd}<"${file}" || return 0
    PROGRESS_FD["${file}"]=${fd}
  fi
  while :; do
    line=""
    if IFS= read -r -u "${fd}" line; then
      PROGRESS_LINES+=("${PROGRESS_PART[${file}]:-}${line}")
      PROGRESS_PART["${file}"]=""
    else
      PROGRESS_PART["${file}"]+="${line}"
      break
    fi
  done
}

# progress_close: closes the logs progress_read opened.
progress_close() {
  local fd
  for fd in "${PROGRESS_FD[@]}"; do exec {fd}<&-; done
  PROGRESS_FD=()
}

# progress ELAPSED MEE: ELAPSED seconds since the customer emulators started; MEE is the
# market emulator's index.
progress() {
  local elapsed="$1" mee="$2" total line
  [[ "${CE_PHASE}" == starting ]] || PROGRESS_RAMP="${PROGRESS_RAMP:-${elapsed}}"
  [[ "${CE_PHASE}" != measuring && "${CE_PHASE}" != over ]] || PROGRESS_START="${PROGRESS_START:-${elapsed}}"
  if is_local "${C_HOST[mee]}"; then
    progress_read "${C_LOG[mee]}"
    for line in "${PROGRESS_LINES[@]}"; do
      [[ "${line}" =~ TR/s\ ([0-9.]+),\ TR\ p90\ ([^,]+) ]] &&
        PROGRESS_MEE="TRTPS ${BASH_REMATCH[1]}, TR p90 ${BASH_REMATCH[2]}"
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
