# shellcheck shell=bash
# controller/run's live progress line: on a terminal redrawn every second, otherwise a line
# every 30 s. Sourced, never run; needs is_local (lib/hosts.sh), the components' C_HOST and
# C_LOG, and RAMP_UP and DURATION in seconds.
#
# The phase follows the first customer emulator's log (Trade-Cleanup; "starting N users": the
# ramp-up; START: measuring; "stopping:"), and so does the clock: elapsed since the emulators
# started, of a total that is what the run does as far as it is known so far: the start and
# Trade-Cleanup as they went, the ramp-up until START (which the emulator marks when the
# ramp-up is over and every user has sent), then the measurement interval. TRTPS and the Trade-Result 90th percentile are those of the
# market emulator's latest summary line (its last 10 s; tests/mee_test.cpp checks the format).
# An emulator on another host shows none of this: its log only comes home at the end.
PROGRESS_TTY=0
[[ -t 1 ]] && PROGRESS_TTY=1
PROGRESS_RAMP=""     # elapsed seconds when the ramp-up was seen to begin
PROGRESS_START=""    # ... when START was seen
PROGRESS_PRINTED=-30 # when the last line went to a non-terminal
# progress ELAPSED CE MEE: ELAPSED seconds since the customer emulators started; CE and MEE are
# the indexes of the first customer emulator and of the market emulator.
progress() {
  local elapsed="$1" ce="$2" mee="$3" phase="running" total ce_line="" mee_line="" line
  if is_local "${C_HOST[ce]}"; then
    phase=$(grep -oE ' info: (Trade-Cleanup$|starting [0-9]+ users|START:|stopping:)' \
      "${C_LOG[ce]}" 2>/dev/null | tail -n 1 || true)
    case "${phase}" in
      *Trade-Cleanup) phase="Trade-Cleanup" ;;
      *starting*) phase="ramp-up"; PROGRESS_RAMP="${PROGRESS_RAMP:-${elapsed}}" ;;
      *START:) phase="measuring" ;;
      *stopping:) phase="stopping" ;;
      *) phase="connecting" ;;
    esac
    [[ "${phase}" != measuring && "${phase}" != stopping ]] ||
      PROGRESS_START="${PROGRESS_START:-${elapsed}}"
    ce_line=$(grep -o 'users active .*' "${C_LOG[ce]}" 2>/dev/null | tail -n 1 || true)
  fi
  if is_local "${C_HOST[mee]}"; then
    mee_line=$(grep -oE 'TR/s [0-9.]+, TR p90 [^,]+' "${C_LOG[mee]}" 2>/dev/null | tail -n 1 || true)
    mee_line="${mee_line/#TR\/s/TRTPS}"
  fi
  if ! is_local "${C_HOST[ce]}"; then
    total=$((RAMP_UP + DURATION))
  elif [[ -n "${PROGRESS_START}" ]]; then
    total=$((PROGRESS_START + DURATION))
  elif [[ -n "${PROGRESS_RAMP}" ]]; then
    total=$((PROGRESS_RAMP + RAMP_UP + DURATION))
  else
    total=$((elapsed + RAMP_UP + DURATION))
  fi
  line=$(printf '[%d:%02d / %d:%02d] %s; %s; CE: %s' $((elapsed / 60)) $((elapsed % 60)) \
    $((total / 60)) $((total % 60)) "${phase}" "${mee_line:-TRTPS -}" "${ce_line:-running}")
  if [[ ${PROGRESS_TTY} -eq 1 ]]; then
    printf '\r\033[K    %s' "${line:0:$((${COLUMNS:-100} - 5))}"
  elif ((elapsed - PROGRESS_PRINTED >= 30)); then
    PROGRESS_PRINTED=${elapsed}
    printf '    %s\n' "${line}"
  fi
}
