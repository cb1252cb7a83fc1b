# shellcheck shell=bash
# What the durability tests (durability_test.sh: crash; failover_test.sh) share: reading
# results.json, a bound on seconds, and the tests' own recount of the acknowledged trades,
# independent of the kit's (its own reading of the mix logs, its own SQL). Sourced, never run;
# needs root (the kit's directory).

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
