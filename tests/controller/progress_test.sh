#!/usr/bin/env bash
# controller/run's progress line (controller/lib/progress.sh): the phase is the customer
# emulator's as its mix log's markers show it (CE_PHASE, lib/interval.sh: starting, ramp-up
# after its Trade-Cleanup row, measuring from START), the total becomes START + the
# measurement interval once START is seen (START comes before the nominal ramp-up ends), and a
# non-terminal gets a line per 30 s. TRTPS and the Trade-Result p90 come from the market
# emulator's live metrics over the last 10 s: here a small HTTP server (Perl) serves hand-written
# expositions, and the figures are worked out by hand from the bucket counts.
# It runs once a second on the database's host, so it starts no process: here every call runs
# with a PATH where no command can be found (the scrape is bash's own /dev/tcp).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=tests/controller/lib/check.sh
source "${root}/tests/controller/lib/check.sh"
# shellcheck source=controller/lib/common.sh
source "${root}/controller/lib/common.sh"
# shellcheck source=controller/lib/hosts.sh
source "${root}/controller/lib/hosts.sh"
# shellcheck source=controller/lib/progress.sh
source "${root}/controller/lib/progress.sh"
work="$(mktemp -d /tmp/bbprogresstest.XXXXXX)"
server_pid=""
cleanup() {
  local PATH=/usr/sbin:/usr/bin:/sbin:/bin  # a failing call may end the test inside `at`
  [[ -z "${server_pid}" ]] || kill "${server_pid}" 2>/dev/null || true
  rm -rf -- "${work}"
}
trap cleanup EXIT

# The endpoint: answers each GET with the file ${work}/metrics (at most 200 connections, 60 s).
# shellcheck disable=SC2016 # Perl's variables
perl -MIO::Socket::INET -e '
  my ($file, $portfile) = @ARGV;
  my $l = IO::Socket::INET->new(LocalAddr => "127.0.0.1", LocalPort => 0, Listen => 8,
                                ReuseAddr => 1) or die "listen: $!";
  open(my $p, ">", "$portfile.tmp") or die; print $p $l->sockport, "\n"; close $p;
  rename("$portfile.tmp", $portfile);
  alarm 60;
  for (1 .. 200) {
    my $c = $l->accept or last;
    while (my $line = <$c>) { last if $line eq "\r\n" }
    open(my $f, "<", $file) or die; local $/; my $body = <$f>; close $f;
    print $c "HTTP/1.1 200 OK\r\nContent-Type: application/openmetrics-text; version=1.0.0\r\n",
             "Content-Length: ", length($body), "\r\nConnection: close\r\n\r\n", $body;
    close $c;
  }' "${work}/metrics" "${work}/port" &
server_pid=$!
for ((i = 0; i < 500; i++)); do [[ -s "${work}/port" ]] && break; sleep 0.01; done
port=$(<"${work}/port")

# metrics N...: the exposition with the Trade-Result histogram's cumulative counts N (17 bounds
# and +Inf), a Market-Feed histogram beside it (never read), and the end mark.
les=(0.0005 0.001 0.0025 0.005 0.01 0.025 0.05 0.1 0.25 0.5 1.0 2.0 3.0 5.0 10.0 30.0 60.0 +Inf)
metrics() {
  local -a n=("$@")
  local i
  {
    printf '# TYPE brokerbench_response_seconds histogram\n'
    for i in "${!les[@]}"; do
      printf 'brokerbench_response_seconds_bucket{type="TR",le="%s"} %s\n' "${les[i]}" "${n[i]}"
      printf 'brokerbench_response_seconds_bucket{type="MF",le="%s"} 999\n' "${les[i]}"
    done
    printf '# EOF\n'
  } >"${work}/metrics"
}
# Every Trade-Result so far at most 0.5 ms (the first bucket): N of them.
all_fast() { metrics "$1" "$1" "$1" "$1" "$1" "$1" "$1" "$1" "$1" "$1" "$1" "$1" "$1" "$1" "$1" "$1" "$1" "$1"; }

PROGRESS_TTY=0
RAMP_UP=240
DURATION=300
C_HOST=(local local)
METRICS=()
CE_PHASE=starting
out="${work}/out"
at() { PATH=/nonexistent progress "$1" 1 >"${out}"; }
says() { grep -qF -- "$1" "${out}"; }
silent() { [[ ! -s "${out}" ]]; }

mee_says() { [[ "${PROGRESS_MEE}" == "$1" ]] || { printf '  got: %s\n' "${PROGRESS_MEE}"; false; }; }

at 0
check "before anything: starting, total = ramp-up + interval" says '[0:00 / 9:00] starting; TRTPS -'
at 1
check "within 30 s of the last line: no line" silent
METRICS=("ce1=http://127.0.0.1:1/metrics" "mee=http://127.0.0.1:${port}/metrics")
all_fast 0
at 30
check "Trade-Cleanup's time added to the total; one scrape is no rate yet" says '[0:30 / 9:30] starting; TRTPS -'
CE_PHASE=ramp-up
at 31
check "two scrapes, no Trade-Result between them" mee_says 'TRTPS 0.0, TR p90 -'
# 20 more Trade-Results: 2 within 2.5 ms, 10 within 5, 16 within 10, all 20 within 25 ms. The
# 90th percentile is the 18th: 2 of the 4 in the 10-25 ms bucket, so 10 + 15 * 2/4 ms.
metrics 0 0 2 10 16 20 20 20 20 20 20 20 20 20 20 20 20 20
at 41
check "the last 10 s (31 to 41): the rate, the p90 interpolated in its bucket" \
  mee_says 'TRTPS 2.0, TR p90 ~17.5 ms'
at 60
check "ramp-up, the total from its start; the window is from the newest scrape 10 s old (41)" \
  says '[1:00 / 9:31] ramp-up; TRTPS 0.0, TR p90 -'
# 5 more, each slower than 60 s: in +Inf alone.
metrics 0 0 2 10 16 20 20 20 20 20 20 20 20 20 20 20 20 25
at 71
check "5 in 11 s (60 to 71), the p90 beyond the last bound" mee_says 'TRTPS 0.4, TR p90 > 60 s'
CE_PHASE=measuring
at 247
check "START seen 24 s before the nominal ramp-up ends: measuring, total = START + interval" \
  says '[4:07 / 9:07] measuring; TRTPS 0.0, TR p90 -'
at 248
# 30 more, all within 0.5 ms (the first bucket): the p90 (the 27th) interpolated from 0.
metrics 30 30 32 40 46 50 50 50 50 50 50 50 50 50 50 50 50 55
at 258
check "the first bucket: interpolated from 0 (500 µs * 27/30)" mee_says 'TRTPS 3.0, TR p90 ~0.4 ms'
# A market emulator that is stopped (SIGSTOP): the kernel accepts the connection, nothing
# answers. The line goes on with the last figures, a scrape costs at most half a second.
perl -MIO::Socket::INET -e '
  my $l = IO::Socket::INET->new(LocalAddr => "127.0.0.1", LocalPort => 0, Listen => 8) or die;
  open(my $p, ">", "$ARGV[0].tmp") or die; print $p $l->sockport, "\n"; close $p;
  rename("$ARGV[0].tmp", $ARGV[0]); sleep 30' "${work}/silent-port" &
silent_pid=$!
for ((i = 0; i < 500; i++)); do [[ -s "${work}/silent-port" ]] && break; sleep 0.01; done
METRICS=("mee=http://127.0.0.1:$(<"${work}/silent-port")/metrics")
t0=${EPOCHREALTIME/./}
at 259
t1=${EPOCHREALTIME/./}
kill "${silent_pid}"
wait "${silent_pid}" 2>/dev/null || true
check "an endpoint that never answers: the last figures stay" mee_says 'TRTPS 3.0, TR p90 ~0.4 ms'
check "... after at most a second" test $(((t1 - t0) / 1000)) -lt 1000
METRICS=("mee=http://127.0.0.1:${port}/metrics")
CE_PHASE=over
kill "${server_pid}"
wait "${server_pid}" 2>/dev/null || true
server_pid=""
at 547
check "over, and the clock reaches the total; the endpoint gone: the last figures stay" \
  says '[9:07 / 9:07] over; TRTPS 3.0, TR p90 ~0.4 ms'
C_HOST=(local mee1)
at 600
check "a market emulator on another host: not scraped, its last figures stay" says '[10:00 / 9:07] over; TRTPS 3.0'
PROGRESS_TTY=1
at 601
check "on a terminal: redrawn in place, every call" says $'\r\033[K    [10:01 / 9:07]'
check "... on one line" test "$(wc -l <"${out}")" -eq 0

check_summary
