# shellcheck shell=bash
# shellcheck disable=SC2034 # the CFG_ variables are read by controller/run
# The run configuration file of a multi-machine run (`brokerbench run --config FILE`); its
# format is documented in controller/run-config.example. Sourced by controller/run.
#
# read_run_config FILE sets:
#   CFG_TEST_ARGS     the [test] settings as run options (--customers 5000 ...)
#   CFG_CONNINFO      [database] conninfo;  CFG_DB_HOST  [database] host ("" when not given)
#   CFG_BH_HOST, CFG_BH_LISTEN, CFG_MEE_HOST, CFG_MEE_LISTEN
#   CFG_CE_HOSTS[i], CFG_CE_USERS[i]   one per [customer_emulator] section, in order
#   CFG_SSH_OPTIONS   [ssh] options, split into words;  CFG_KIT, CFG_BUILD, CFG_WORK
# Every error names the file, the line, the key and the value, and exits 2.

declare -a CFG_TEST_ARGS=() CFG_CE_HOSTS=() CFG_CE_USERS=() CFG_SSH_OPTIONS=()
CFG_CONNINFO=""
CFG_DB_HOST=""
CFG_BH_HOST=local
CFG_BH_LISTEN=""
CFG_MEE_HOST=local
CFG_MEE_LISTEN=""
CFG_KIT="${BB_ROOT}"
CFG_BUILD="${BB_BUILD_DIR}"
CFG_WORK=/tmp/brokerbench-work

# HOST:PORT with a port from 1 to 65535 (an IPv6 address goes in brackets).
_cfg_is_listen() { [[ "$1" =~ ^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+):([0-9]{1,5})$ ]] &&
  ((10#${BASH_REMATCH[2]} >= 1 && 10#${BASH_REMATCH[2]} <= 65535)); }

read_run_config() {
  local file="$1" line n=0 section="" key value where
  [[ -r "${file}" ]] || usage_error "run: --config: cannot read '${file}'"
  local -A seen=()
  while IFS= read -r line || [[ -n "${line}" ]]; do
    n=$((n + 1))
    line="${line%$'\r'}"
    where="${file}:${n}"
    [[ "${line}" =~ ^[[:space:]]*(#.*)?$ ]] && continue
    if [[ "${line}" =~ ^[[:space:]]*\[([a-z_]+)\][[:space:]]*$ ]]; then
      section="${BASH_REMATCH[1]}"
      case "${section}" in
        test | database | brokerage_house | market_emulator | ssh)
          [[ -z "${seen[${section}]:-}" ]] || usage_error "${where}: [${section}] appears twice"
          seen[${section}]=1 ;;
        customer_emulator) CFG_CE_HOSTS+=(local); CFG_CE_USERS+=("") ;;
        *) usage_error "${where}: unknown section [${section}] (test, database, brokerage_house, market_emulator, customer_emulator, ssh)" ;;
      esac
      continue
    fi
    [[ "${line}" =~ ^[[:space:]]*([a-z_]+)[[:space:]]*=[[:space:]]*(.*[^[:space:]])?[[:space:]]*$ ]] ||
      usage_error "${where}: '${line}' is not 'key = value', a [section] or a # comment"
    key="${BASH_REMATCH[1]}"
    value="${BASH_REMATCH[2]}"
    [[ -n "${section}" ]] || usage_error "${where}: '${key}' comes before any [section]"
    [[ -n "${value}" ]] || usage_error "${where}: ${key} has no value"
    local last=$((${#CFG_CE_HOSTS[@]} - 1))
    case "${section}:${key}" in
      test:customers | test:initial_trade_days | test:scale_factor | test:ramp_up | test:duration | \
        test:pacing | test:seed | test:db_workers | test:frames | test:comment)
        CFG_TEST_ARGS+=("--${key//_/-}" "${value}") ;;
      database:conninfo) CFG_CONNINFO="${value}" ;;
      database:host) CFG_DB_HOST="${value}" ;;
      brokerage_house:host) CFG_BH_HOST="${value}" ;;
      market_emulator:host) CFG_MEE_HOST="${value}" ;;
      brokerage_house:listen | market_emulator:listen)
        _cfg_is_listen "${value}" || usage_error "${where}: listen: '${value}' is not HOST:PORT with a port from 1 to 65535"
        if [[ "${section}" == brokerage_house ]]; then CFG_BH_LISTEN="${value}"; else CFG_MEE_LISTEN="${value}"; fi ;;
      customer_emulator:host) CFG_CE_HOSTS[last]="${value}" ;;
      customer_emulator:users)
        [[ "${value}" =~ ^[1-9][0-9]{0,6}$ ]] || usage_error "${where}: users: '${value}' is not a number from 1 to 9999999"
        CFG_CE_USERS[last]="${value}" ;;
      ssh:options) read -r -a CFG_SSH_OPTIONS <<<"${value}" ;;
      ssh:kit) CFG_KIT="${value}" ;;
      ssh:build_dir) CFG_BUILD="${value}" ;;
      ssh:work_dir) CFG_WORK="${value}" ;;
      *) usage_error "${where}: unknown key '${key}' in [${section}]" ;;
    esac
  done <"${file}"

  [[ ${#CFG_CE_HOSTS[@]} -gt 0 ]] || usage_error "${file}: no [customer_emulator] section"
  local i
  for ((i = 0; i < ${#CFG_CE_HOSTS[@]}; i++)); do
    [[ -n "${CFG_CE_USERS[i]}" ]] || usage_error "${file}: [customer_emulator] number $((i + 1)) (host ${CFG_CE_HOSTS[i]}) has no 'users ='"
  done
  [[ -n "${CFG_CONNINFO}" ]] || usage_error "${file}: [database] needs 'conninfo =' (a libpq connection string that the Brokerage House's host and this one can use)"
  local h section_name
  for h in BH MEE; do
    local host_var="CFG_${h}_HOST" listen_var="CFG_${h}_LISTEN"
    section_name=brokerage_house
    [[ "${h}" == BH ]] || section_name=market_emulator
    if [[ -z "${!listen_var}" ]]; then
      is_local "${!host_var}" || usage_error "${file}: [${section_name}] on host ${!host_var} needs 'listen = ADDRESS:PORT' (an address the other hosts reach)"
      printf -v "${listen_var}" '127.0.0.1:0'
    fi
  done
  if [[ "${CFG_BH_HOST}" != "${CFG_MEE_HOST}" && ( "${CFG_BH_LISTEN}" == *:0 || "${CFG_MEE_LISTEN}" == *:0 ) ]]; then
    usage_error "${file}: the brokerage_house and the market_emulator are on different hosts: give both a 'listen =' with a port"
  fi
  for h in "${CFG_CE_HOSTS[@]}"; do
    if ! is_local "${h}" && [[ "${CFG_BH_LISTEN}" == 127.* ]]; then
      usage_error "${file}: a customer_emulator on ${h} cannot reach the brokerage_house at ${CFG_BH_LISTEN} (loopback): give it a 'listen =' address"
    fi
  done
}
