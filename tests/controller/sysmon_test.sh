#!/usr/bin/env bash
# postprocess/bb-cpu-sampler's host file (sysstat.csv, the format controller/sysmon documents): two
# seconds of samples of this host, with every column a number, the memory consistent with
# /proc/meminfo and the network counted without the loopback. No run, no database.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=tests/controller/lib/check.sh
source "${root}/tests/controller/lib/check.sh"
work="$(mktemp -d /tmp/bbsysmontest.XXXXXX)"
trap 'rm -rf -- "${work}"' EXIT

"${root}/postprocess/bb-cpu-sampler" "${work}/proc_cpu.csv" --host "${work}/sysstat.csv" --seconds 2
host="${work}/sysstat.csv"
check "the header names every column, the new ones at the end" test "$(head -1 "${host}")" == \
  'time_us,cpu_user_pct,cpu_system_pct,cpu_iowait_pct,cpu_idle_pct,disk_read_kb_s,disk_write_kb_s,mem_used_kb,mem_cached_kb,mem_free_kb,net_rx_kb_s,net_tx_kb_s'
check "a line per second after the first sample" test "$(wc -l <"${host}")" -eq 3
check "every line has twelve numbers" \
  test "$(tail -n +2 "${host}" | grep -cE '^[0-9]+(,[0-9]+(\.[0-9]+)?){11}$')" -eq 2
total=$(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo)
# used (total - available) + free <= total; cached holds at least the page cache of this script.
# shellcheck disable=SC2016 # awk's own variables
check "memory used + free is at most MemTotal (${total} KiB), cached is not 0" \
  awk -F, -v t="${total}" 'NR > 1 && !($8 + $10 <= t && $8 > 0 && $9 > 0 && $10 > 0) { bad = 1 } END { exit bad }' "${host}"
# The loopback carries the local traffic of a one-host run: not network. 4 MB through it in
# the first second must not show.
"${root}/postprocess/bb-cpu-sampler" "${work}/p2.csv" --host "${work}/lo.csv" --seconds 2 &
sampler=$!
# After its first sample: its first row is in p2.csv (the header, then a row per sample).
for ((i = 0; i < 500; i++)); do
  mapfile -t rows <"${work}/p2.csv" 2>/dev/null || rows=()
  ((${#rows[@]} < 2)) || break
  sleep 0.01
done
perl -MIO::Socket::INET -e '
  my $srv = IO::Socket::INET->new(LocalAddr => "127.0.0.1", Listen => 1) or die "listen: $!";
  my $pid = fork // die "fork: $!";
  if (!$pid) {
    my $c = IO::Socket::INET->new(PeerAddr => "127.0.0.1", PeerPort => $srv->sockport) or die $!;
    print {$c} "x" x 4_000_000;
    exit 0;
  }
  my $c = $srv->accept;
  1 while sysread($c, my $buf, 65536);
  waitpid $pid, 0;'
wait "${sampler}"
# shellcheck disable=SC2016
check "4 MB over the loopback are not counted as network" \
  awk -F, 'NR > 1 && $11 + $12 > 1000 { bad = 1 } END { exit bad }' "${work}/lo.csv"
check_summary
