# shellcheck shell=bash
# shellcheck disable=SC2154,SC2034 # root and data are the test's; it reads OUT, RC and DIR
# What the durability tests (durability_test.sh: crash; failover_test.sh) share: their
# database, the durability command in the background and its end, reading results.json, a
# bound on seconds, and the tests' own recount of the acknowledged trades, independent of the
# kit's (its own reading of the mix logs, its own SQL). Sourced, never run; needs root (the
# kit's directory) and data (the test's BB_DATA_DIR).

# shellcheck source=controller/lib/cluster-config.sh
source "${root}/controller/lib/cluster-config.sh"  # free_port

RUN_PID=""
# The trap of EXIT: the durability command stopped if it still runs, the test's clusters and
# directory deleted.
durability_cleanup() {
  if [[ -n "${RUN_PID}" ]]; then
    kill -TERM "${RUN_PID}" 2>/dev/null || true
    wait "${RUN_PID}" 2>/dev/null || true
  fi
  "${root}/brokerbench" db destroy --yes >/dev/null 2>&1 || true
  rm -rf -- "${data}"
}

# load_test_database FIRST_PORT: the test's database, 1000 customers and 2 trade days, in a
# cluster on the first free port from FIRST_PORT; exits the test when it cannot be loaded. Not
# on a port of the kit's own choosing (the first free one from 5433): the crash leaves the port
# free for a while, and another test's new cluster would take it (the restart then fails:
# the Brokerage House reconnects to that port). Each test has its own 50 ports.
load_test_database() {
  local port
  port=$(free_port "$1" $(($1 + 49))) || { printf 'FAILED: no free port from %s to %s\n' "$1" $(($1 + 49)); exit 1; }
  printf -- '--- loading the database (port %s)\n' "${port}"
  if ! "${root}/brokerbench" db start --port "${port}" >"${data}/load.out" 2>&1 ||
    ! "${root}/brokerbench" build-db --customers 1000 --initial-trade-days 2 >>"${data}/load.out" 2>&1; then
    tail -n 30 "${data}/load.out"
    printf 'FAILED: the database could not be loaded\n'
    exit 1
  fi
}

# durability_run FAILURE NAME ARGS...: the durability command in the background, 40 s before
# the failure and 30 s after, its output in data/NAME.out (OUT); finish waits for it.
durability_run() {
  local failure="$1" name="$2"
  shift 2
  OUT="${data}/${name}.out"
  "${root}/brokerbench" durability --failure "${failure}" --before 40s --after 30s --ramp-up 10s \
    --initial-trade-days 2 "$@" >"${OUT}" 2>&1 &
  RUN_PID=$!
}
# Sets RC (its exit status) and DIR (its results directory); shows its output's end on failure.
finish() {
  RC=0
  wait "${RUN_PID}" || RC=$?
  RUN_PID=""
  DIR=$(grep -m 1 '^==> results directory ' "${OUT}" | sed 's/^==> results directory //')
  [[ ${RC} -eq 0 ]] || { grep -E '^(brokerbench|==>)' "${OUT}" | tail -n 40; tail -n 30 "${OUT}"; }
}

json() { perl -MJSON::PP -e 'my $j = JSON::PP->new->decode(do { local $/; <STDIN> });
  my $v = $j; $v = $v->{$_} for split /\./, $ARGV[0]; print defined $v ? $v : "null"' "$2" <"$1/results.json"; }

# seconds_between VALUE LO HI: VALUE is a number of seconds, LO < VALUE < HI.
seconds_between() {
  [[ "$1" =~ ^[0-9]+(\.[0-9]+)?$ ]] || return 1
  local us=$(( 10#${1%.*} * 1000000 ))
  [[ "$1" != *.* ]] || us=$((us + 10#$(printf '%-6s' "${1#*.}" | tr ' ' 0 | cut -c1-6)))
  ((us > $2 * 1000000 && us < $3 * 1000000))
}

# recount DIR CONNINFO: every TO and TR row ended ok before the failure (failure_us of
# durability.conf), looked up in the database of CONNINFO. Prints "acknowledged missing"
# (distinct trades). A Trade-Result's trade must be completed with its settlement, for a cash
# trade its cash transaction, and a holding history row; a Trade-Order's must exist.
recount() {
  local dir="$1" conninfo="$2" failure t code oc resp id rest
  failure=$(grep '^failure_us=' "${dir}/durability/durability.conf" | cut -d= -f2)
  declare -A to=() tr=()
  local f
  for f in "${dir}"/ce/*/mix-*.csv "${dir}"/mee/*/mix-*.csv; do
    while IFS=, read -r t code _ oc resp _ _ _ _ id rest; do
      [[ -z "${rest:-}" && "${oc}" == ok && "${id}" =~ ^[0-9]+$ && "${t}" =~ ^[0-9]+$ ]] || continue
      ((t + resp < failure)) || continue
      case "${code}" in TO) to[${id}]=1 ;; TR) tr[${id}]=1 ;; esac
    done < <(tail -n +3 "${f}")
  done
  local to_list tr_list
  to_list=$(IFS=,; printf '%s' "${!to[*]}")
  tr_list=$(IFS=,; printf '%s' "${!tr[*]}")
  psql "${conninfo}" -XAtq -v ON_ERROR_STOP=1 -c "
    with o(id) as (select unnest('{${to_list}}'::bigint[])),
         r(id) as (select unnest('{${tr_list}}'::bigint[])),
         a(id) as (select id from o union select id from r)
    select (select count(*) from a),
           (select count(*) from a where
              (id in (select id from r) and not exists (select 1 from trade t where t.t_id = a.id
                 and t.t_st_id = 'CMPT' and exists (select 1 from settlement where se_t_id = a.id)
                 and (not t.t_is_cash or exists (select 1 from cash_transaction where ct_t_id = a.id))
                 and exists (select 1 from holding_history where hh_t_id = a.id)))
              or (id not in (select id from r) and not exists (select 1 from trade where t_id = a.id)))" |
    tr '|' ' '
}

# mi_start_us RESULTS: the customer emulator's START marker (µs), once written; waits up to
# 300 s. Empty when it never came.
mi_start_us() {
  local n start=""
  for ((n = 0; n < 1500; n++)); do
    start=$(grep -hsm 1 '^[0-9]*,START,' "$1"/ce/*/mix-ce-*.csv | cut -d, -f1) || true
    [[ -z "${start}" ]] || break
    sleep 0.2
  done
  printf '%s\n' "${start}"
}
