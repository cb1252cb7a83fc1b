#!/usr/bin/env bash
# controller/block-trace (run --block-trace): where perf is missing or refuses, it says why in
# block-trace.conf and exits 0, so the run goes on; with a stand-in perf it records, stops on
# SIGTERM and at its limit. As root with a real perf: a real trace of the device under a
# directory of the checkout while dd writes 64 blocks of 8 KB to a file with O_DIRECT and reads
# them twice, found at the file's own sectors (filefrag) as 64 writes and 128 reads of 8 KB, and
# the post-processor's figures of those rows (BlockTrace.pm): 64 blocks read, none once, 64
# re-reads under 1 s. Then sysmon --block-trace. No database.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=tests/controller/lib/check.sh
source "${root}/tests/controller/lib/check.sh"
tmp="$(mktemp -d /tmp/bbblocktracetest.XXXXXX)"
# A directory of the checkout stands in for a data directory (build*/ is git's to ignore).
data="${root}/build-block-trace-test.$$"
tracer=""
cleanup() {
  [[ -z "${tracer}" ]] || kill -TERM "${tracer}" 2>/dev/null || true
  rm -rf -- "${tmp}" "${data}"
}
trap cleanup EXIT
mkdir -p "${data}/pg_wal"
"${root}/postprocess/bb-io-devices" --out "${tmp}/io-devices.conf" --pgdata "${data}" >/dev/null
trace="${root}/controller/block-trace"

value() { sed -n "s/^$2=//p" "$1" | tail -n 1; }
is() { [[ "$1" == "$2" ]] || { printf '  got:      %s\n  expected: %s\n' "$1" "$2"; return 1; }; }
matches() { [[ "$1" =~ $2 ]] || { printf '  got: %s\n  not matching: %s\n' "$1" "$2"; return 1; }; }

# PATHs of the tools block-trace needs, without perf and with a stand-in.
mkdir -p "${tmp}/noperf" "${tmp}/withperf"
for tool in bash env sed grep head tail cat mkdir rm mktemp mkfifo id uname dirname perl sleep; do
  ln -s "$(command -v "${tool}")" "${tmp}/noperf/${tool}"
  ln -s "$(command -v "${tool}")" "${tmp}/withperf/${tool}"
done
# Stand-in: "record" refuses when FAKE_PERF=denied, else writes a byte and waits for SIGINT
# (exit 130, as perf does; Perl, as a background job's ignored SIGINT cannot be trapped by bash);
# "script" prints FAKE_LINES' lines and reads its input to the end.
cat >"${tmp}/withperf/perf" <<'PERF'
#!/usr/bin/env perl
if ($ARGV[0] eq 'record') {
  if (($ENV{FAKE_PERF} // '') eq 'denied') {
    print STDERR "event syntax error: block:block_rq_issue\nError:\tNo permissions to read /sys/kernel/tracing/events/block/block_rq_issue\n";
    exit 129;
  }
  $SIG{INT} = sub { exit 130 };
  $| = 1;
  print 'x';
  sleep 1 while 1;
}
if ($ARGV[0] eq 'script') {
  open my $fh, '<', $ENV{FAKE_LINES} or die;
  print while <$fh>;
  1 while <STDIN>;
}
PERF
chmod +x "${tmp}/withperf/perf"

# run_for SECONDS OUT [ARGS...]: block-trace in the background, SIGTERM after SECONDS.
run_for() {
  local seconds="$1" out="$2"
  shift 2
  "${trace}" "${out}" --io-devices "${tmp}/io-devices.conf" "$@" >"${out}.txt" 2>&1 &
  tracer=$!
  sleep "${seconds}"
  kill -TERM "${tracer}" 2>/dev/null || true
  wait "${tracer}"
  tracer=""
}

# 1. No perf.
PATH="${tmp}/noperf" run_for 0.5 "${tmp}/none"
check "no perf: still exit 0, and says why" \
  is "$(cat "${tmp}/none.txt")" "not traced: perf is not installed on $(uname -n) (Debian package linux-perf)"
check "... in block-trace.conf too" is "$(value "${tmp}/none/block-trace.conf" traced)" no

device=$(value "${tmp}/io-devices.conf" data_device)
if [[ -z "${device}" ]]; then
  printf 'SKIPPED: the checkout is on no block device (%s): the traces need one\n' "$(value "${tmp}/io-devices.conf" data_why)"
  PATH="${tmp}/withperf" run_for 0.5 "${tmp}/nodev"
  check "no block device: said" matches "$(value "${tmp}/nodev/block-trace.conf" why)" '^the data directory is on no block device'
  check_summary
  exit $?
fi
filter=$("${root}/postprocess/bb-block-trace" plan --io-devices "${tmp}/io-devices.conf" | head -n 1)
dev_t=${filter#dev == }
mm=$(value "${tmp}/io-devices.conf" data_major_minor)
start=$(cat "/sys/dev/block/${mm}/start" 2>/dev/null || echo 0)

# 2. perf refuses.
FAKE_PERF=denied PATH="${tmp}/withperf" run_for 1 "${tmp}/denied"
check "perf refuses: exit 0, says why with perf's words and the setting" \
  matches "$(cat "${tmp}/denied.txt")" '^not traced: perf record failed on .* \(exit 129\): No permissions to read /sys/kernel/tracing/events/block/block_rq_issue \(kernel\.perf_event_paranoid = '
check "... no trace file left" test ! -e "${tmp}/denied/block-trace.csv.gz"

# 3. A stand-in that records four requests of the device, one of another.
{
  printf '100.000001: %d,%d RA 8192 () %d + 16 0x2,0,4 [postgres]\n' $((dev_t >> 20)) $((dev_t & 0xfffff)) $((start + 32))
  printf '100.000002: block:block_bio_queue: %s FWS 0 + 0 [postgres]\n' "${mm/:/,}"
  printf '100.000002:  block:block_rq_issue: %d,%d WS 16384 () %d + 32 [postgres]\n' $((dev_t >> 20)) $((dev_t & 0xfffff)) $((start + 64))
  printf '100.000003: 1,1 WS 4096 () 8 + 8 [other]\n'
  printf '100.000004: %d,%d FF 0 () 0 + 0 [kworker]\n' $((dev_t >> 20)) $((dev_t & 0xfffff))
} >"${tmp}/lines"
FAKE_LINES="${tmp}/lines" PATH="${tmp}/withperf" run_for 1 "${tmp}/fake"
check "recorded: says so" matches "$(cat "${tmp}/fake.txt")" "^traced ${device} on .*: 4 requests$"
check "... traced=yes, perf asked to stop (130)" \
  is "$(value "${tmp}/fake/block-trace.conf" traced) $(value "${tmp}/fake/block-trace.conf" perf_exit)" 'yes 130'
check "... its rows: a read of 8 KB, an empty pre-flush write, a write of 16 KB, a flush; not the other device's" \
  is "$(gzip -dc "${tmp}/fake/block-trace.csv.gz" | cut -d, -f2- | paste -sd' ')" 'op,sector,sectors R,32,16 E,0,0 W,64,32 F,0,0'
FAKE_LINES="${tmp}/lines" PATH="${tmp}/withperf" run_for 1 "${tmp}/limit" --max-requests 2
check "the limit: 2 requests, said" matches "$(cat "${tmp}/limit.txt")" ': 2 requests \(the limit, 2: the trace stops here\)$'
check "... limit_reached=yes" is "$(value "${tmp}/limit/block-trace.conf" limit_reached)" yes
check "a bad --max-requests is a usage error (2)" \
  test "$("${trace}" "${tmp}/x" --io-devices "${tmp}/io-devices.conf" --max-requests 0 2>/dev/null; echo $?)" = 2

# 4. Real perf, as root: the file's own requests.
if [[ "$(id -u)" -ne 0 ]] || ! command -v perf >/dev/null; then
  printf 'SKIPPED: a real trace needs root and perf (linux-perf)\n'
  check_summary
  exit $?
fi
# The file is made and on the device first: inside the trace, only the O_DIRECT requests.
file="${data}/blocks"
dd if=/dev/zero of="${file}" bs=8k count=64 conv=fsync status=none
"${trace}" "${tmp}/real" --io-devices "${tmp}/io-devices.conf" >"${tmp}/real.txt" 2>&1 &
tracer=$!
# Ready once perf record holds its events (a perf_event descriptor per CPU).
ready=0
for ((i = 0; i < 100 && ready == 0; i++)); do
  sleep 0.1
  for pid in $(ps -o pid= --ppid "${tracer}"); do
    [[ "$(cat "/proc/${pid}/comm" 2>/dev/null)" == perf ]] || continue
    for fd in "/proc/${pid}/fd/"*; do
      [[ "$(readlink "${fd}" 2>/dev/null)" != *perf_event* ]] || ready=1
    done
  done
done
check "perf record started and holds its events" test "${ready}" -eq 1
sleep 0.5
dd if=/dev/zero of="${file}" bs=8k count=64 oflag=direct conv=notrunc status=none
dd if="${file}" of=/dev/null bs=8k iflag=direct status=none
dd if="${file}" of=/dev/null bs=8k iflag=direct status=none
# Three overwrites of block 0, each with fdatasync: nothing but the data to write, so each sends
# an empty pre-flush write after it (where the device has a write-back cache).
for ((i = 0; i < 3; i++)); do dd if=/dev/zero of="${file}" bs=8k count=1 conv=notrunc,fdatasync status=none; done
sleep 0.5
kill -TERM "${tracer}"
wait "${tracer}"
tracer=""
check "a real trace: traced=yes" is "$(value "${tmp}/real/block-trace.conf" traced)" yes
check "... perf lost nothing" is "$(value "${tmp}/real/block-trace.conf" lost)" 0
check "... and no perf.data" test ! -e "${tmp}/real/perf.data"
# The file's sectors (512-byte units from the device's start), from its extents.
if extents=$(filefrag -b512 -v "${file}" 2>/dev/null | perl -ne 'print "$1 $2\n" if /^\s*\d+:\s*\d+\.\.\s*\d+:\s*(\d+)\.\.\s*(\d+):/') && [[ -n "${extents}" ]]; then
  gzip -dc "${tmp}/real/block-trace.csv.gz" | perl -e '
    my @ext = map { [split] } split /\n/, $ARGV[0];
    my $head = <STDIN>;
    open my $out, "|-", "gzip -c >$ARGV[1]" or die;
    print {$out} $head;
    while (<STDIN>) {
      my (undef, $op, $s, $n) = split /,/;
      print {$out} $_ if grep { $s >= $_->[0] && $s + $n - 1 <= $_->[1] } @ext;
    }' "${extents}" "${tmp}/file.csv.gz"
  counts=$(gzip -dc "${tmp}/file.csv.gz" | tail -n +2 | cut -d, -f2,4 | sort | uniq -c | sed 's/^ *//' | paste -sd' ')
  check "at the file's sectors: 128 reads and 67 writes, each of 8 KB (16 sectors)" is "${counts}" '128 R,16 67 W,16'
  # shellcheck disable=SC2016 # Perl's variables
  figures=$(perl -I"${root}/postprocess/lib" -MBrokerBench::BlockTrace=trace_figures -e '
    my ($f, $err) = trace_figures($ARGV[0], "t", sub { die "$_[0]{reason}\n" }, 0, 9e18);
    die "$err\n" unless $f;
    printf "%d %d %d %d %.1f %d %d %d\n", $f->{requests}{reads}, $f->{requests}{writes},
      $f->{sizes}[0]{total}, $f->{blocks_read}, $f->{read_once_pct}, $f->{read_reuse}{n},
      $f->{read_reuse}{buckets}[0]{count}, $f->{write_after_read}{n};' "${tmp}/file.csv.gz")
  check "their figures: 128 reads, 67 writes, 195 of 8 KB, 64 blocks read, 0 % once, 64 re-reads under 1 s, a write after a read" \
    is "${figures}" '128 67 195 64 0.0 64 64 1'
else
  printf 'SKIPPED: filefrag gives no extents of %s: counting every 8 KB request instead\n' "${file}"
  check "at least 67 writes and 128 reads of 8 KB" \
    test "$(gzip -dc "${tmp}/real/block-trace.csv.gz" | grep -cE ',(R|W),[0-9]+,16$')" -ge 195
fi
disk=$(value "${tmp}/real/block-trace.conf" disk)
if [[ "$(cat "/sys/block/${disk}/queue/write_cache" 2>/dev/null)" == "write back" ]]; then
  check "the fdatasyncs' empty pre-flush writes: at least 3" \
    test "$(gzip -dc "${tmp}/real/block-trace.csv.gz" | grep -c ',E,0,0$')" -ge 3
fi

# 5. Not root: the real perf refuses (the tracepoints need root, or paranoid -1).
if command -v runuser >/dev/null && [[ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 0 ]]; then
  mkdir -m 777 "${tmp}/user"
  chmod 755 "${tmp}"
  runuser -u nobody -- "${trace}" "${tmp}/user/out" --io-devices "${tmp}/io-devices.conf" >"${tmp}/user.txt" 2>&1 || true
  check "as nobody: not traced, perf record's refusal said" \
    matches "$(cat "${tmp}/user.txt")" '^not traced: perf record failed on .* \(exit [0-9]+\): .*perf_event_paranoid = [0-9]+;'
fi

# 6. sysmon --block-trace: the tracer runs beside the sampler and stops with it.
"${root}/controller/sysmon" "${tmp}/sys" --seconds 2 --pgdata "${data}" --block-trace
check "sysmon --block-trace: block-trace.conf says it traced ${device}" \
  is "$(value "${tmp}/sys/block-trace.conf" traced) $(value "${tmp}/sys/block-trace.conf" device)" "yes ${device}"
check "... and block-trace.txt says so" matches "$(cat "${tmp}/sys/block-trace.txt")" "^traced ${device} on "
"${root}/controller/sysmon" "${tmp}/sys2" --seconds 1 --pgdata "${data}"
check "sysmon without it: no trace" test ! -e "${tmp}/sys2/block-trace.conf"
check_summary
