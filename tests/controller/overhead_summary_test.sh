#!/usr/bin/env bash
# controller/overhead-summary --pgbench: the medians of `bench overhead --vs-pgbench`'s runs per
# frames mode and connections, from made-up runs whose medians are known. Checks:
#   1. each (frames, connections) gets one line, in the order of the runs;
#   2. the medians of an even and an odd number of runs, and the ratios between them;
#   3. a call with neither a records file nor --pgbench FILE is refused with the usage.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=tests/controller/lib/check.sh
source "${root}/tests/controller/lib/check.sh"
work="$(mktemp -d /tmp/bbovsumtest.XXXXXX)"
trap 'rm -rf -- "${work}"' EXIT

cat >"${work}/runs.txt" <<'RUNS'
frames=server connections=1 pair=1 driver=pgbench tps=3000.0 txns=60000 seconds=20 driver_us=28.00 pg_us=300.00
frames=server connections=1 pair=1 driver=bh tps=2400.0 txns=48000 errors=0 bh_us=87.00 client_us=20.00 driver_us=107.00 pg_us=310.00
frames=server connections=1 pair=2 driver=bh tps=2500.0 txns=50000 errors=0 bh_us=85.00 client_us=21.00 driver_us=106.00 pg_us=305.00
frames=server connections=1 pair=2 driver=pgbench tps=3100.0 txns=62000 seconds=20 driver_us=30.00 pg_us=296.00
frames=client connections=4 pair=1 driver=pgbench tps=5000.0 txns=100000 seconds=20 driver_us=60.00 pg_us=300.00
frames=client connections=4 pair=1 driver=bh tps=4000.0 txns=80000 errors=0 bh_us=130.00 client_us=20.00 driver_us=150.00 pg_us=330.00
frames=client connections=4 pair=2 driver=bh tps=3000.0 txns=60000 errors=0 bh_us=140.00 client_us=10.00 driver_us=150.00 pg_us=360.00
frames=client connections=4 pair=2 driver=pgbench tps=7000.0 txns=140000 seconds=20 driver_us=50.00 pg_us=340.00
frames=client connections=4 pair=3 driver=pgbench tps=6000.0 txns=120000 seconds=20 driver_us=40.00 pg_us=320.00
frames=client connections=4 pair=3 driver=bh tps=3500.0 txns=70000 errors=0 bh_us=135.00 client_us=30.00 driver_us=165.00 pg_us=345.00
RUNS
"${root}/controller/overhead-summary" --pgbench "${work}/runs.txt" >"${work}/out.txt"
cat "${work}/out.txt"
lines() { grep -E '^(server|client) ' "${work}/out.txt" | awk '{print $1, $2}' | tr '\n' ';'; }
check "one line per frames mode and connections, in the runs' order" \
  test "$(lines)" == "server 1;client 4;"
# server 1: two runs each: pgbench 3050/s, 29.0 us, PG 298.0; BH 2450/s, 86.0 + 20.5 = 106.5 us, PG 307.5.
check "medians of two runs, and their ratios" has_line "${work}/out.txt" \
  '^server +1 +3050\.0 +2450\.0 +0\.80x +29\.0 +86\.0 +20\.5 +106\.5 +3\.67x +298\.0 +307\.5 +1\.03x$'
# client 4: three runs each: pgbench 6000/s, 50.0 us, PG 320.0; BH 3500/s, 135.0 + 20.0 = 150.0, PG 345.0.
check "medians of three runs, and their ratios" has_line "${work}/out.txt" \
  '^client +4 +6000\.0 +3500\.0 +0\.58x +50\.0 +135\.0 +20\.0 +150\.0 +3\.00x +320\.0 +345\.0 +1\.08x$'
rc=0
"${root}/controller/overhead-summary" >"${work}/usage.txt" 2>&1 || rc=$?
check "no arguments: refused with the usage" test "${rc}" -ne 0
check "no arguments: the usage names --pgbench" has_line "${work}/usage.txt" 'Usage: overhead-summary .*--pgbench'
check_summary
