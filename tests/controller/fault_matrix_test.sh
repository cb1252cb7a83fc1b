#!/usr/bin/env bash
# The fault matrix (issue 16): what a user sees when a component or the database fails during a
# run. Short `./brokerbench run`s (5 users, a 5 s ramp-up, 20 s measured) on one embedded cluster
# of the test's own, loaded once; one fault each, a few seconds into the measurement interval:
#   a. PostgreSQL restarted (pg_ctl restart -m fast);
#   b. the Brokerage House's database sessions ended (pg_terminate_backend);
#   c. the market emulator stopped (SIGSTOP) for 10 s, then continued (SIGCONT);
#   d. the market emulator killed (SIGKILL); e. the Brokerage House killed; f. the customer
#      emulator killed.
# a-c: the run completes (exit 0) with a report in which every request is accounted for and the
# errors the fault caused are errors (the mix logs' own count), never rollbacks; while the market
# emulator is stopped no Trade-Result goes out, and afterwards they do. d-f: the run
# stops (exit 1) naming the component and its log, keeps the results directory with every
# component's log, and its report accounts for what was sent: what the killed component held is
# said to be unknown (it left no end-of-run record), with what is known (a killed market
# emulator's pending orders among the database's open trades), never "none".
# Only processes this test started are signalled, by the pids in the run's results directory
# (remote-exec.pid). A case whose checks all pass prints them alone; a case with a failed check
# prints its run's console output after them. About five minutes on two busy cores.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
data="$(mktemp -d /tmp/bbfaults.XXXXXX)"
chmod 0711 "${data}"
export BB_DATA_DIR="${data}"
# shellcheck source=tests/controller/lib/check.sh
source "${root}/tests/controller/lib/check.sh"
# shellcheck source=controller/lib/common.sh
source "${root}/controller/lib/common.sh"  # as_db_user, pg_bindir

RUN_PID=""     # the run in the background, while there is one
STOPPED_PID="" # a component this test stopped (SIGSTOP), until it is continued

cleanup() {
  [[ -z "${STOPPED_PID}" ]] || kill -CONT "${STOPPED_PID}" 2>/dev/null || true
  if [[ -n "${RUN_PID}" ]]; then
    kill -TERM "${RUN_PID}" 2>/dev/null || true  # the controller stops its components
    wait "${RUN_PID}" 2>/dev/null || true
  fi
  "${root}/brokerbench" db destroy --yes >/dev/null 2>&1 || true
  rm -rf -- "${data}"
}
trap cleanup EXIT

# --- the runs ------------------------------------------------------------------------------------

RUN_N=0
RUN_DIR=""
RUN_OUT=""
RUN_RC=0

CASE_FAILURES=0 # the failed checks (lib/check.sh's CHECK_FAILED) when the case began

# show_failed_case: the last case's console output, when one of its checks failed (a passing
# case prints its checks alone, so that CI's excerpt of a long output reaches the failure).
show_failed_case() {
  [[ -n "${RUN_OUT}" ]] && ((${#CHECK_FAILED[@]} > CASE_FAILURES)) || return 0
  printf '    the run of the case above said:\n'
  sed 's/^/    | /' "${RUN_OUT}"
}

# start_run CASE: a short run in the background (RUN_PID), its results directory (RUN_DIR: the
# next numbered one) and its console output (RUN_OUT).
start_run() {
  show_failed_case
  CASE_FAILURES=${#CHECK_FAILED[@]}
  RUN_N=$((RUN_N + 1))
  RUN_DIR="${data}/results/$(printf '%04d' "${RUN_N}")"
  RUN_OUT="${data}/run-$1.out"
  printf -- '--- case %s: %s\n' "$1" "$2"
  "${root}/brokerbench" run --duration 20s --ramp-up 5s --users 5 --comment "fault $1" \
    >"${RUN_OUT}" 2>&1 &
  RUN_PID=$!
}

# wait_measuring SECONDS: until the run's customer emulator has marked START, then SECONDS more;
# fails when the run ends first or nothing happens for 4 minutes.
wait_measuring() {
  local n
  for ((n = 0; n < 2400; n++)); do
    if grep -qsE '^[0-9]+,START,' "${RUN_DIR}"/ce/*/mix-ce-*.csv; then  # its mix log's marker
      sleep "$1"
      return 0
    fi
    kill -0 "${RUN_PID}" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

# pid_of KIND: the pid of the run's component of KIND (bh, mee, ce).
pid_of() { cat "${RUN_DIR}/$1"/*/remote-exec.pid; }

# finish_run: waits for the run; RUN_RC is its exit status.
finish_run() {
  RUN_RC=0
  wait "${RUN_PID}" || RUN_RC=$?
  RUN_PID=""
}

# json KEY...: the value at that path of the run's results.json, or "none".
json() {
  perl -MJSON::PP -e 'local $/; open my $f, "<", shift or do { print "none\n"; exit };
    my $v = JSON::PP::decode_json(<$f>); $v = ref $v eq "HASH" ? $v->{$_} : undef for @ARGV;
    print defined $v ? "$v\n" : "none\n"' "${RUN_DIR}/results.json" "$@"
}
# reason REGEX: whether the verdict has a reconciliation reason matching REGEX (Perl).
reason() {
  perl -MJSON::PP -e 'local $/; open my $f, "<", shift or exit 1; my $re = shift;
    exit !grep { $_->{rule} eq "reconciliation" && $_->{text} =~ /$re/ }
      @{ JSON::PP::decode_json(<$f>)->{verdict}{reasons} }' "${RUN_DIR}/results.json" "$1"
}

# raw_outcomes: "outcome rows" of the customer emulators' mix logs, counted here from the files.
raw_outcomes() {
  awk -F, 'NF == 10 && length($2) == 2 { n[$4]++ } END { for (o in n) print o, n[o] }' \
    "${RUN_DIR}"/ce/*/mix-ce-*.csv | sort
}
# The same as the report's reconciliation counts them (results.json).
reported_outcomes() {
  perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0] or exit 1;
    my %name = ("ok" => "ok", "rollback" => "rollback", "warning" => "warning",
                "invalid" => "invalid", "lost in flight" => "net_error", "timed out" => "timeout");
    for my $t (@{ JSON::PP::decode_json(<$f>)->{reconciliation}{ce}{terms} }) {
      next unless $t->{rows};
      print(($name{ $t->{name} } // $t->{name}), " $t->{rows}\n");
    }' "${RUN_DIR}/results.json" | sort
}
# The raw counts with retry_exhausted and db_error together as "errors", as the report has them.
raw_grouped() {
  raw_outcomes | awk '$1 == "retry_exhausted" || $1 == "db_error" { e += $2; next } { print }
    END { if (e) print "errors", e }' | sort
}
outcomes_agree() {
  local raw reported
  raw=$(raw_grouped)
  reported=$(reported_outcomes)
  [[ "${raw}" == "${reported}" ]] && return 0
  printf 'mix logs:\n%s\nreport:\n%s\n' "${raw}" "${reported}"
  return 1
}
# Every rollback row is an intended one: a Trade-Order whose inputs carry "rb" (clause 6.4.1);
# an error never counts as a rollback.
rollbacks_intended() {
  ! awk -F, 'NF == 10 && $4 == "rollback" && ($2 != "TO" || $9 !~ /(^| )rb( |$)/) { bad = 1 }
    END { exit !bad }' "${RUN_DIR}"/ce/*/mix-ce-*.csv
}
# report_has REGEX: whether report.txt, its lines joined and spaces folded, matches (ERE).
report_has() { tr -s ' \n' ' ' <"${RUN_DIR}/report.txt" | grep -qE -- "$1"; }
report_lacks() { ! report_has "$1"; }
mee_rows() { awk -F, 'NF == 10 && $2 == "TR"' "${RUN_DIR}"/mee/*/mix-mee.csv | wc -l; }

# The checks of a run that goes on through its fault: it completes, reports, reconciles.
check_completed() {
  local c="$1"
  check "${c}: the run completes (exit 0)" test "${RUN_RC}" -eq 0
  check "${c}: it prints the verdict and the report's path" has_line "${RUN_OUT}" '^ *Report: .*/report\.txt$'
  check "${c}: report.txt and results.json exist" nonempty "${RUN_DIR}/results.json"
  check "${c}: run.conf says complete" has_line "${RUN_DIR}/run.conf" '^status=complete$'
  check "${c}: the customer emulators' requests reconcile" test "$(json reconciliation ce holds)" == 1
  check "${c}: ... and the market emulator's orders" test "$(json reconciliation mee holds)" == 1
  check "${c}: report.txt shows both lines holding" \
    report_has 'Customer emulators: [0-9]+ requests sent = [^:]*: holds\. Market emulator: [0-9]+ orders received = [^:]*: holds\.'
  check "${c}: ... and nothing that does not hold" report_lacks 'does NOT hold'
  check "${c}: every outcome of the mix logs is in the report's count" outcomes_agree
  check "${c}: every rollback is an intended one (errors are not rollbacks)" rollbacks_intended
  check "${c}: Trade-Results were delivered" test "$(mee_rows)" -gt 0
}

# The checks of a run stopped by a dead component: NAME as the controller says it, KIND its
# directory, LOG its log's name.
check_failed() {
  local c="$1" name="$2" kind="$3" log="$4" f
  check "${c}: the run fails (exit 1)" test "${RUN_RC}" -eq 1
  check "${c}: the controller names the ${name}" has_line "${RUN_OUT}" "run failed: the ${name} died during the run"
  check "${c}: ... and its log" has_line "${RUN_OUT}" "see ${RUN_DIR}/${kind}/.*/${log}"
  check "${c}: ... and where the results are" has_line "${RUN_OUT}" "what was gathered is in ${RUN_DIR}"
  check "${c}: run.conf records the failure" has_line "${RUN_DIR}/run.conf" "^status=failed: the ${name} died"
  for f in bh/*/bh.log mee/*/mee.log mee/*/mix-mee.csv mee/*/failed-trades.csv ce/*/ce.log \
    ce/*/mix-ce-*.csv db/after/open-trades.csv report.txt results.json; do
    # shellcheck disable=SC2086 # the glob names one file
    check "${c}: the results directory kept ${f}" nonempty ${RUN_DIR}/${f}
  done
  check "${c}: the report's verdict is INVALID" has_line "${RUN_DIR}/report.txt" '^ *Verdict: INVALID'
  check "${c}: ... with the run status as a reason" report_has "\[run status, clause controller\] [^']*'failed: the ${name} died"
  check "${c}: the controller points at the report" \
    has_line "${RUN_OUT}" "the report of what ran until then \(INVALID\): ${RUN_DIR}/report\.txt"
  check "${c}: no process of the run is left" test -z "$(pgrep -f -- "${RUN_DIR}/" || true)"
}

# --- the database: loaded once --------------------------------------------------------------------

printf -- '--- loading the database\n'
if ! "${root}/brokerbench" build-db --customers 1000 --initial-trade-days 20 \
  >"${data}/load.out" 2>&1; then
  tail -n 30 "${data}/load.out"
  printf 'FAILED: the database could not be loaded\n'
  exit 1
fi

# --- a. PostgreSQL restarted mid-run --------------------------------------------------------------
start_run a "PostgreSQL restarted (pg_ctl restart -m fast)"
if wait_measuring 4; then
  as_db_user "$(pg_bindir)/pg_ctl" -D "${data}/pg/data" -l "${data}/pg/log/restart.log" -m fast \
    -w -t 60 restart >"${data}/restart.out" 2>&1 || cat "${data}/restart.out"
fi
finish_run
check_completed a
check "a: the Brokerage House saw its sessions go and came back" \
  has_line "$(echo "${RUN_DIR}"/bh/*/bh.log)" 'reconnected'

# --- b. the Brokerage House's database sessions ended -------------------------------------------
start_run b "the Brokerage House's sessions ended (pg_terminate_backend)"
ended=0
if wait_measuring 4; then
  ended=$("${root}/brokerbench" db psql -XAtq -c "select count(pg_terminate_backend(pid))
    from pg_stat_activity where application_name = 'bb-brokerage-house'")
fi
printf 'ended %s sessions of the Brokerage House\n' "${ended}"
finish_run
check "b: the test ended the Brokerage House's sessions" test "${ended:-0}" -gt 0
check_completed b
check "b: the Brokerage House came back" has_line "$(echo "${RUN_DIR}"/bh/*/bh.log)" 'reconnected'

# --- c. the market emulator stopped for 10 s --------------------------------------------------------
start_run c "the market emulator stopped (SIGSTOP) for 10 s, then continued"
stopped_us=0
continued_us=0
if wait_measuring 3; then
  STOPPED_PID=$(pid_of mee)
  kill -STOP "${STOPPED_PID}"
  stopped_us=$(date +%s%6N)
  sleep 10
  continued_us=$(date +%s%6N)
  kill -CONT "${STOPPED_PID}"
  STOPPED_PID=""
fi
finish_run
check_completed c
# The orders the Brokerage House sent meanwhile waited in the socket: the emulator takes them
# when it continues, so its rows show the gap (and the report's throughput), not a longer wait.
tr_between() {
  awk -F, -v a="$1" -v b="$2" 'NF == 10 && $2 == "TR" && $1 >= a && $1 < b { n++ } END { print n + 0 }' \
    "${RUN_DIR}"/mee/*/mix-mee.csv
}
printf 'Trade-Results sent while it was stopped: %s; after: %s\n' \
  "$(tr_between $((stopped_us + 500000)) $((continued_us - 500000)))" "$(tr_between "${continued_us}" 9999999999999999)"
check "c: the test stopped the market emulator" test "${continued_us}" -gt 0
check "c: no Trade-Result went out while it was stopped" \
  test "$(tr_between $((stopped_us + 500000)) $((continued_us - 500000)))" -eq 0
check "c: ... and they did after it continued" test "$(tr_between "${continued_us}" 9999999999999999)" -gt 0

# --- d. the market emulator killed -----------------------------------------------------------------
start_run d "the market emulator killed (SIGKILL)"
wait_measuring 8 && kill -KILL "$(pid_of mee)"
finish_run
check_failed d "market emulator" mee mee.log
check "d: it left no end-of-run record" test ! -e "$(echo "${RUN_DIR}"/mee/*/mix-mee.end)"
check "d: the report says the orders it held are unknown" \
  report_has 'Market emulator: orders received unknown: mee/[^ ]+ never reached its end \(no end-of-run record beside its mix log'
check "d: ... and the trades the database left open" \
  report_has 'The database left [0-9]+ trades open after the run \(db/after/open-trades\.csv: [0-9]+ SBMT, [0-9]+ PNDG\)'
check "d: never 'Pending at the end: none' nor 'Failed trades: none.'" \
  lacks_line "${RUN_DIR}/report.txt" 'Pending at the end: none|Failed trades: none\.'
check "d: the customer emulators' requests still reconcile" test "$(json reconciliation ce holds)" == 1
check "d: the verdict names the market emulator that never reached its end" \
  reason 'market emulator mee/\S+ never reached its end'

# --- e. the Brokerage House killed ------------------------------------------------------------------
start_run e "the Brokerage House killed (SIGKILL)"
wait_measuring 4 && kill -KILL "$(pid_of bh)"
finish_run
check_failed e "Brokerage House" bh bh.log
check "e: the customer emulators' requests reconcile (lost ones as lost in flight)" \
  test "$(json reconciliation ce holds)" == 1
check "e: ... as the mix logs count them" outcomes_agree
check "e: the market emulator's orders reconcile" test "$(json reconciliation mee holds)" == 1

# --- f. the customer emulator killed ----------------------------------------------------------------
start_run f "the customer emulator killed (SIGKILL)"
wait_measuring 4 && kill -KILL "$(pid_of ce)"
finish_run
check_failed f "customer emulator 1" ce ce.log
check "f: the report says what it sent is unknown, with what its mix log holds" \
  report_has 'Customer emulators: requests sent unknown: ce/[^ ]+ never reached its end .* Its mix log accounts for [0-9]+ = '
check "f: the verdict names it" \
  reason 'customer emulator ce/\S+ never reached its end'
check "f: the market emulator's orders reconcile" test "$(json reconciliation mee holds)" == 1

show_failed_case
check_summary
