#!/usr/bin/env bash
# controller/profile (brokerbench run --profile) with a stand-in perf: it records, folds and
# draws; where perf is missing or refuses, it says so in profile.txt and still exits 0, so the
# run goes on. No real perf and no database.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=tests/controller/lib/check.sh
source "${root}/tests/controller/lib/check.sh"
tmp="$(mktemp -d /tmp/bbprofiletest.XXXXXX)"
trap 'rm -rf -- "${tmp}"' EXIT

# A PATH of the tools the script needs, without perf; the stand-in goes into a copy of it.
mkdir -p "${tmp}/noperf" "${tmp}/withperf"
for tool in bash env tee uname cat grep head awk rm mkdir sleep dirname perl; do
  ln -s "$(command -v "${tool}")" "${tmp}/noperf/${tool}"
  ln -s "$(command -v "${tool}")" "${tmp}/withperf/${tool}"
done
cat >"${tmp}/withperf/perf" <<'PERF'
#!/usr/bin/env bash
# Stand-in: "record ... -o FILE -- sleep N" writes FILE, or refuses when FAKE_PERF=denied;
# "script" prints two samples in perf's format.
case "$1" in
  record)
    if [[ "${FAKE_PERF:-}" == denied ]]; then
      printf 'Error:\nAccess to performance monitoring and observability operations is limited.\n' >&2
      exit 255
    fi
    while [[ "$1" != -o ]]; do shift; done
    printf 'data\n' >"$2" ;;
  script)
    printf 'postgres 40211 [000] 1.000001: 10101010 cpu-clock:ppp: \n'
    printf '\t    55d0c0a1b2c3 ExecScan+0x43 (/usr/lib/postgresql/15/bin/postgres)\n'
    printf '\t    55d0c09f0000 PostgresMain+0x7ff (/usr/lib/postgresql/15/bin/postgres)\n\n'
    printf 'postgres 40212 [001] 1.010001: 10101010 cpu-clock:ppp: \n'
    printf '\t    55d0c09f0000 PostgresMain+0x7ff (/usr/lib/postgresql/15/bin/postgres)\n\n' ;;
esac
PERF
chmod +x "${tmp}/withperf/perf"

profile() { PATH="$1" "${root}/controller/profile" "$2" --seconds 1 >/dev/null; }

check "recorded: exit 0" profile "${tmp}/withperf" "${tmp}/ok"
check "... says how many samples" has_line "${tmp}/ok/profile.txt" '^recorded 1 s on .*: 2 samples, flamegraph\.svg$'
check "... the folded stacks" has_line "${tmp}/ok/profile.folded" '^postgres;PostgresMain;ExecScan 1$'
check "... the flame graph" has_line "${tmp}/ok/flamegraph.svg" '<title>all \(2 samples, 100\.00 %\)</title>'
check "... perf.data removed" test ! -e "${tmp}/ok/perf.data"

refused() { FAKE_PERF=denied profile "$@"; }
check "perf refuses: still exit 0" refused "${tmp}/withperf" "${tmp}/denied"
check "... and says why, with perf's words and the setting" has_line "${tmp}/denied/profile.txt" \
  '^not profiled: perf record failed on .* \(exit 255\): Access to performance monitoring .*perf_event_paranoid = '
check "... no flame graph" test ! -e "${tmp}/denied/flamegraph.svg"

check "no perf: exit 0" profile "${tmp}/noperf" "${tmp}/none"
check "... and says it is not installed" has_line "${tmp}/none/profile.txt" \
  '^not profiled: perf is not installed on .* \(Debian package linux-perf\)$'

check "a bad --seconds is a usage error (2)" \
  test "$("${root}/controller/profile" "${tmp}/x" --seconds 0 2>/dev/null; echo $?)" = 2

check_summary
