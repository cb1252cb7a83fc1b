# shellcheck shell=bash
# shellcheck disable=SC2034 # its globals are read by controller/run and the other lib files
# controller/run's settings: their defaults, then the options (and a run configuration's
# [test] settings before them). Each bad value is a usage error naming the option and the
# value. Sourced by controller/run, which gives usage and COMMAND_ARGS.

CUSTOMERS=1000
TRADE_DAYS=20
SCALE_FACTOR=500
CONNINFO=""
CONNINFO_EMBEDDED=0
USERS=10
# 15 minutes: a limit order triggers within one 900 s period of the price curve
# (common/workload/price_curve.h; kSteadyRampUpSeconds in common/workload/spec.h), so only after
# 900 s at full load do as many Trade-Results come back as Trade-Orders go out, and the
# measurement interval must lie in that steady state (clause 6.6).
RAMP_UP=900
# 15 minutes, one whole period of the price curve too: the Trade-Results of an interval are the
# market orders plus the limit orders that trigger in it, and the pending count wanders (about
# 100-145 at 2 tpsE, BENCHMARKS.md "--pacing auto against the nominal throughput"), so over 5
# minutes TRTPS moved about 2.5 % from run to run; over 15 about 1 %.
DURATION=900
PACING=auto
SEED=""
SEED_SOURCE="time of day"
DB_WORKERS=$(($(nproc) * 2))
FRAMES=server
BH_PORT=0
MEE_PORT=0
COMMENT=""
PROFILE=0
BLOCK_TRACE=0  # --block-trace: sysmon traces the data device (controller/block-trace)
SETS=()  # --set NAME=VALUE, for the embedded cluster
STANDBY=""  # --standby sync|async: a streaming standby of the embedded cluster (lib/database.sh)
DB_MEMORY=""  # --db-memory as given: bytes with a unit (256M) or a percentage of the database (8%)
RESULTS_PARENT="${BB_DATA_DIR}/results"
COMMAND_SHOWN=""   # the command line as it may be shown and stored: --db redacted
CONNINFO_SHOWN=""  # the database's connection string, likewise

# VALUE if it is a whole number in [MIN, MAX], else a usage error naming OPTION.
whole() {
  local option="$1" value="$2" min="$3" max="$4"
  if [[ ! "${value}" =~ ^[0-9]{1,10}$ ]] || ((10#${value} < min || 10#${value} > max)); then
    usage_error "run: ${option}: '${value}' is not a whole number from ${min} to ${max}"
  fi
  printf '%s\n' "$((10#${value}))"
}

# The smallest --db-memory: PostgreSQL's processes and a little page cache.
readonly DB_MEMORY_MIN_MB=64

# memory_request_valid VALUE: whether VALUE is a --db-memory: a size with a unit of K, M, G or
# T (powers of 1024; an optional B or iB after it), or a percentage (PCT%).
memory_request_valid() {
  local b
  if [[ "$1" == *% ]]; then
    b=$(thousandths "${1%\%}") && ((b > 0 && b <= 100000))
  else
    b=$(memory_bytes "$1") && ((b >= DB_MEMORY_MIN_MB * 1048576))
  fi
}

# memory_bytes SIZE: bytes of a size with a unit (256M, 1.5G, 1024MB, 2GiB); false if not one.
memory_bytes() {
  [[ "$1" =~ ^([0-9.]+)([KkMmGgTt])(i?B)?$ ]] || return 1
  local n shift
  n=$(thousandths "${BASH_REMATCH[1]}") || return 1
  case "${BASH_REMATCH[2]}" in K | k) shift=10 ;; M | m) shift=20 ;; G | g) shift=30 ;; *) shift=40 ;; esac
  printf '%s\n' $(((n << shift) / 1000))
}

# thousandths NUMBER: a number with up to 3 decimals (and 7 digits before them) in thousandths,
# for bash's whole-number arithmetic: 12.5 -> 12500.
thousandths() {
  [[ "$1" =~ ^([0-9]{1,7})(\.([0-9]{1,3}))?$ ]] || return 1
  local fraction="${BASH_REMATCH[3]}000"
  printf '%s\n' $((10#${BASH_REMATCH[1]} * 1000 + 10#${fraction:0:3}))
}

parse_options() {
  while [[ $# -gt 0 ]]; do
    local option="$1"
    case "${option}" in
      -h | --help) usage; exit 0 ;;
      --profile) PROFILE=1; shift; continue ;;
      --block-trace) BLOCK_TRACE=1; shift; continue ;;
    esac
    [[ $# -ge 2 ]] || usage_error "run: ${option} needs a value (see --help)"
    local value="$2"
    case "${option}" in
      --customers)
        CUSTOMERS=$(whole "${option}" "${value}" 1000 100000000)
        ((CUSTOMERS % 1000 == 0)) || usage_error "run: --customers: '${value}' is not a multiple of 1000" ;;
      --initial-trade-days) TRADE_DAYS=$(whole "${option}" "${value}" 1 3650) ;;
      --scale-factor) SCALE_FACTOR=$(whole "${option}" "${value}" 1 1000000) ;;
      --db) [[ -n "${value}" ]] || usage_error "run: --db: the connection string is empty"; CONNINFO="${value}" ;;
      --users) USERS=$(whole "${option}" "${value}" 1 1000000) ;;
      --ramp-up) RAMP_UP=$(to_seconds run "${option}" "${value}") ;;
      --duration)
        DURATION=$(to_seconds run "${option}" "${value}")
        ((DURATION > 0)) || usage_error "run: --duration: '${value}' must be longer than 0" ;;
      --pacing)
        [[ "${value}" == auto || "${value}" =~ ^[0-9]{1,4}(\.[0-9]{1,6})?$ ]] ||
          usage_error "run: --pacing: '${value}' is not a number of seconds (e.g. 0.5) or 'auto'"
        PACING="${value}" ;;
      --seed) SEED=$(whole "${option}" "${value}" 0 4294967295); SEED_SOURCE=fixed ;;
      --db-workers) DB_WORKERS=$(whole "${option}" "${value}" 1 10000) ;;
      --frames)
        [[ "${value}" == server || "${value}" == client ]] ||
          usage_error "run: --frames: '${value}' is not 'server' or 'client'"
        FRAMES="${value}" ;;
      --bh-port) BH_PORT=$(whole "${option}" "${value}" 1 65535) ;;
      --mee-port) MEE_PORT=$(whole "${option}" "${value}" 1 65535) ;;
      --comment)
        [[ "${value}" != *$'\n'* ]] || usage_error "run: --comment: the text must be one line"
        COMMENT="${value}" ;;
      --results-dir) [[ -n "${value}" ]] || usage_error "run: --results-dir: empty"; RESULTS_PARENT="${value}" ;;
      --set)
        [[ "${value}" =~ ${PG_SET_PATTERN} ]] || usage_error "run: --set: '${value}' is not ${PG_SET_SHAPE}"
        SETS+=("${value}") ;;
      --standby)
        [[ "${value}" == sync || "${value}" == async ]] || usage_error "run: --standby: '${value}' is not 'sync' or 'async'"
        STANDBY="${value}" ;;
      --db-memory)
        memory_request_valid "${value}" ||
          usage_error "run: --db-memory: '${value}' is not a size of at least ${DB_MEMORY_MIN_MB} MB (e.g. 256M, 1.5G) or a percentage of the database above 0 and at most 100 (e.g. 8%)"
        DB_MEMORY="${value}" ;;
      *) usage_error "run: unknown option '${option}' (see --help)" ;;
    esac
    shift 2
  done
}

# read_command_line ARGS...: the settings from a run configuration (--config FILE: its [test]
# settings come before the command line's, which win) and the options; the command line as it
# may be shown (COMMAND_SHOWN, --db redacted) and the database's password kept out of sight.
read_command_line() {
  # --config FILE first: its [test] settings come before the command line's, which win.
  local -a args=()
  while [[ $# -gt 0 ]]; do
    if [[ "$1" == --config ]]; then
      [[ -n "${2:-}" ]] || usage_error "run: --config needs a file"
      CONFIG="$2"
      shift 2
    else
      args+=("$1")
      shift
    fi
  done
  if [[ -n "${CONFIG}" ]]; then
    read_run_config "${CONFIG}"
    local a
    for a in "${args[@]}"; do
      [[ "${a}" != --users && "${a}" != --bh-port && "${a}" != --mee-port ]] ||
        usage_error "run: ${a} does not go with --config (users, hosts and ports are in the configuration)"
    done
    args=("${CFG_TEST_ARGS[@]}" --db "${CFG_CONNINFO}" "${args[@]}")
  fi
  parse_options "${args[@]}"
  COMMAND_SHOWN="./brokerbench run $(redact_args "${COMMAND_ARGS[@]}")"
  if [[ -n "${CONNINFO}" ]]; then
    CONNINFO_SHOWN=$(redact_conninfo "${CONNINFO}")
    hide_password "run: --db${CONFIG:+ (or [database] conninfo in ${CONFIG})}" "${CONNINFO}"
    CONNINFO="${DB_CONNINFO}"
  fi
  [[ ${#SETS[@]} -eq 0 || -z "${CONNINFO}" ]] ||
    usage_error "run: --set changes the embedded cluster's settings; those of a server named by --db${CONFIG:+ or --config} are yours to set"
  [[ -z "${DB_MEMORY}" || -z "${CONNINFO}" ]] ||
    usage_error "run: --db-memory caps the embedded cluster; the memory of a server named by --db${CONFIG:+ or --config} is yours to set"
  [[ -z "${STANDBY}" || -z "${CONNINFO}" ]] ||
    usage_error "run: --standby makes a standby of the embedded cluster; a server named by --db${CONFIG:+ or --config} has the standbys you give it"
  if [[ -n "${CONFIG}" ]]; then
    USERS=0
    for a in "${CFG_CE_USERS[@]}"; do USERS=$((USERS + a)); done
  fi
}
