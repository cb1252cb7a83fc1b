# shellcheck shell=bash
# shellcheck disable=SC2034 # the CFG_ variables are read by controller/run
# The run configuration file of a multi-machine run (`brokerbench run --config FILE`) or load
# (`brokerbench build-db --config FILE`); its format is documented in
# controller/run-config.example. Sourced by controller/run and controller/build-db.
#
# read_run_config FILE [run|build-db] sets (build-db needs no emulators, so a file with only
# [test], [database], [loader] and [ssh] sections is enough for it):
#   CFG_TEST_ARGS     the [test] settings as run options (--customers 5000 ...)
#   CFG_CONNINFO      [database] conninfo;  CFG_DB_HOST  [database] host ("" when not given)
#   CFG_BH_HOST, CFG_BH_LISTEN, CFG_MEE_HOST, CFG_MEE_LISTEN
#   CFG_CE_HOSTS[i], CFG_CE_USERS[i]   one per [customer_emulator] section, in order
#   CFG_LOADER_HOSTS[i], CFG_LOADER_UNITS[i], CFG_LOADER_JOBS[i]   one per [loader] section,
#                     in order; UNITS and JOBS are "" when the section does not give them
#   CFG_SSH_OPTIONS   [ssh] options, split into words;  CFG_KIT, CFG_BUILD, CFG_WORK
# Every error names the file, the line, the key and the value, and exits 2.

declare -a CFG_TEST_ARGS=() CFG_CE_HOSTS=() CFG_CE_USERS=() CFG_SSH_OPTIONS=()
declare -a CFG_LOADER_HOSTS=() CFG_LOADER_UNITS=() CFG_LOADER_JOBS=()
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

# A host as a run configuration names it: "local", or an ssh destination [USER@]HOST, HOST a
# host name or ~/.ssh/config alias (letters, digits, '.', '_', '-'), an IPv4 or an IPv6
# address (hex digits, ':' and '.'). USER and HOST never start with '-' or '.', so a host
# cannot reach ssh as an option (-oProxyCommand=...) whatever ssh itself checks.
_cfg_is_host() {
  local user='[A-Za-z0-9_][A-Za-z0-9._-]{0,31}@' name='[A-Za-z0-9_][A-Za-z0-9._-]{0,252}'
  local ipv6='[0-9A-Fa-f]*:[0-9A-Fa-f:.]+'
  [[ "$1" =~ ^(${user})?(${name}|${ipv6})$ ]]
}

read_run_config() {
  local file="$1" purpose="${2:-run}" line n=0 section="" key value where
  [[ "${purpose}" == run || "${purpose}" == build-db ]] || die "read_run_config: purpose '${purpose}' is not run or build-db"
  [[ -r "${file}" ]] || usage_error "${purpose}: --config: cannot read '${file}'"
  local -A seen=() keys=()  # a section's first line; the current section's keys' lines
  while IFS= read -r line || [[ -n "${line}" ]]; do
    n=$((n + 1))
    line="${line%$'\r'}"
    where="${file}:${n}"
    [[ "${line}" =~ ^[[:space:]]*(#.*)?$ ]] && continue
    if [[ "${line}" =~ ^[[:space:]]*\[([a-z_]+)\][[:space:]]*$ ]]; then
      section="${BASH_REMATCH[1]}"
      keys=()
      case "${section}" in
        test | database | brokerage_house | market_emulator | ssh)
          [[ -z "${seen[${section}]:-}" ]] ||
            usage_error "${where}: [${section}] appears twice" "(first at ${file}:${seen[${section}]})"
          seen[${section}]="${n}" ;;
        customer_emulator) CFG_CE_HOSTS+=(local); CFG_CE_USERS+=("") ;;
        loader) CFG_LOADER_HOSTS+=(local); CFG_LOADER_UNITS+=(""); CFG_LOADER_JOBS+=("") ;;
        *) usage_error "${where}: unknown section [${section}] (test, database, brokerage_house, market_emulator, customer_emulator, loader, ssh)" ;;
      esac
      continue
    fi
    [[ "${line}" =~ ^[[:space:]]*([a-z_]+)[[:space:]]*=[[:space:]]*(.*[^[:space:]])?[[:space:]]*$ ]] ||
      usage_error "${where}: '${line}' is not 'key = value', a [section] or a # comment"
    key="${BASH_REMATCH[1]}"
    value="${BASH_REMATCH[2]}"
    [[ -n "${section}" ]] || usage_error "${where}: '${key}' comes before any [section]"
    [[ -n "${value}" ]] || usage_error "${where}: ${key} has no value"
    # Last-wins would hide a mistake (two hosts for one component): each key once a section.
    [[ -z "${keys[${key}]:-}" ]] ||
      usage_error "${where}: '${key}' appears twice in [${section}]" \
        "(first at ${file}:${keys[${key}]})"
    keys[${key}]="${n}"
    [[ "${key}" != host ]] || _cfg_is_host "${value}" ||
      usage_error "${where}: host: '${value}' is not local, a host name, an IP address or user@host"
    local last=$((${#CFG_CE_HOSTS[@]} - 1)) last_loader=$((${#CFG_LOADER_HOSTS[@]} - 1))
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
      loader:host) CFG_LOADER_HOSTS[last_loader]="${value}" ;;
      loader:load_units)
        # The form only; bb-loader --split-load-units checks the ranges against the sizing.
        [[ "${value}" =~ ^[0-9]{1,9}(-[0-9]{1,9})?$ ]] || usage_error "${where}: load_units: '${value}' is not FIRST-LAST (load units of 1000 customers counted from 0, e.g. 0-4) or one load unit N"
        CFG_LOADER_UNITS[last_loader]="${value}" ;;
      loader:jobs)
        if [[ ! "${value}" =~ ^[1-9][0-9]{0,2}$ ]] || ((value > 256)); then
          usage_error "${where}: jobs: '${value}' is not a number from 1 to 256"
        fi
        CFG_LOADER_JOBS[last_loader]="${value}" ;;
      ssh:options) read -r -a CFG_SSH_OPTIONS <<<"${value}" ;;
      ssh:kit) CFG_KIT="${value}" ;;
      ssh:build_dir) CFG_BUILD="${value}" ;;
      ssh:work_dir) CFG_WORK="${value}" ;;
      *) usage_error "${where}: unknown key '${key}' in [${section}]" ;;
    esac
  done <"${file}"

  [[ -n "${CFG_CONNINFO}" ]] || usage_error "${file}: [database] needs 'conninfo =' (a libpq connection string that the Brokerage House's host, the loaders' hosts and this one can use)"
  [[ "${purpose}" == run ]] || return 0
  [[ ${#CFG_CE_HOSTS[@]} -gt 0 ]] || usage_error "${file}: no [customer_emulator] section"
  local i
  for ((i = 0; i < ${#CFG_CE_HOSTS[@]}; i++)); do
    [[ -n "${CFG_CE_USERS[i]}" ]] || usage_error "${file}: [customer_emulator] number $((i + 1)) (host ${CFG_CE_HOSTS[i]}) has no 'users ='"
  done
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

# build-db's sizing, in SIZING (bb-loader options) and SIZING_TEXT: run's defaults, then [test]
# (when a run configuration was read), then the command line (OVERRIDES: option value ...).
declare -a SIZING=()
SIZING_TEXT=""
plan_sizing() {
  local customers=1000 days=20 scale=500 i
  local -a pairs=("${CFG_TEST_ARGS[@]}" "$@")
  for ((i = 0; i + 1 < ${#pairs[@]}; i += 2)); do
    case "${pairs[i]}" in
      --customers) customers="${pairs[i + 1]}" ;;
      --initial-trade-days) days="${pairs[i + 1]}" ;;
      --scale-factor) scale="${pairs[i + 1]}" ;;
    esac
  done
  SIZING=(--customers "${customers}" --initial-trade-days "${days}" --scale-factor "${scale}")
  SIZING_TEXT="${customers} customers, ${days} initial trade days, scale factor ${scale}"
}
