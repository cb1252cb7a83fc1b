#!/usr/bin/env bash
# run --db-memory on a real cgroup (issue 38 item 7): a throwaway cluster restarted by
# `pgcluster start DIR --memory 268435456` (256 MB) reads a table of about 450 MB twice. Its
# postmaster and every child are in the cgroup DIR/memory-cap names; the data directory's files
# were out of the page cache at the start; the cgroup's usage, sampled here every 0.1 s during
# the reads, never goes above the cap (+5 %) yet above half of it (the page cache of the reads
# was charged to the cgroup and filled it); the reads reached the device (the backend's own
# read_bytes, and the sectors read of the block device under DIR in /proc/diskstats: at least
# half the table); `pgcluster memory` gives the cap, a peak under it and no OOM kill. A start
# without --memory leaves the cgroup (deleted, memory-cap gone), and a stop deletes it.
# Where this machine cannot make a memory cgroup it says so and passes (SKIPPED): the
# mechanisms are then checked only on made-up trees, by memcap_tree_test.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=tests/controller/lib/check.sh
source "${root}/tests/controller/lib/check.sh"
# shellcheck source=controller/lib/common.sh
source "${root}/controller/lib/common.sh"
# shellcheck source=controller/lib/memcap.sh
source "${root}/controller/lib/memcap.sh"
pgcluster="${root}/controller/pgcluster"

readonly CAP=268435456                # 256 MB
readonly CAP_SLACK=$((CAP * 105 / 100))  # the cap + 5 %
readonly CACHED_AT_START_MAX=33554432  # 32 MB

if ! memcap_plan brokerbench-pg-probe; then
  printf 'SKIPPED: %s; the mechanisms are checked on made-up trees by memcap_tree_test\n' \
    "${MEMCAP_PROBLEM}"
  exit 0
fi

data="$(mktemp -d /tmp/bbmemcaptest.XXXXXX)"
chmod 0711 "${data}"
dir="${data}/pg"
sampler_pid=""
cgroups_seen=()  # every cgroup the cluster ran in: deleted by cleanup if still there
cleanup() {
  if [[ -n "${sampler_pid}" ]]; then
    kill "${sampler_pid}" 2>/dev/null || true
    wait "${sampler_pid}" 2>/dev/null || true
  fi
  [[ ! -f "${dir}/memory-cap" ]] || cgroups_seen+=("$(sed -n 's/^cgroup=//p' "${dir}/memory-cap")")
  "${pgcluster}" destroy "${dir}" >/dev/null 2>&1 || true
  local cg
  for cg in "${cgroups_seen[@]}"; do
    [[ -z "${cg}" || ! -d "${cg}" ]] || rmdir -- "${cg}" 2>/dev/null || true
  done
  rm -rf -- "${data}"
}
trap cleanup EXIT
unset PGPASSWORD PGPASSFILE

"${pgcluster}" init "${dir}" --throwaway --no-tcp >/dev/null
# A throwaway cluster runs with fsync=off: the table and its WAL are still dirty in the page
# cache at the capped start, and the eviction must write them out before it can drop them.
"${pgcluster}" start "${dir}" >/dev/null
admin=$("${pgcluster}" conninfo "${dir}")
sql() { psql "${admin}" -XAtqv ON_ERROR_STOP=1 -c "$1"; }
# Made outside the cap: its pages are cached, and charged to no cgroup of the cluster's.
sql "create table big as select g, repeat('x', 500) pad from generate_series(1, 850000) g"
table_bytes=$(sql "select pg_relation_size('big')")
printf 'table big: %s bytes (the cap: %s)\n' "${table_bytes}" "${CAP}"
check "the table is larger than the cap by half" test "${table_bytes}" -gt $((CAP * 3 / 2))

check "start --memory ${CAP}: accepted" \
  "${pgcluster}" start "${dir}" --memory "${CAP}" --set shared_buffers=32MB
cap_file="${dir}/memory-cap"
field() { sed -n "s/^$2=//p" "$1"; }
kind=$(field "${cap_file}" kind)
cg=$(field "${cap_file}" cgroup)
cgroups_seen+=("${cg}")
printf 'memory-cap: %s\n' "$(tr '\n' ' ' <"${cap_file}")"
check "memory-cap names the kind of cgroup (v1, v2, v2-scope)" \
  has_line "${cap_file}" '^kind=(v1|v2|v2-scope)$'
check "  and a cgroup that exists" test -f "${cg}/cgroup.procs"
if [[ "${kind}" == v1 ]]; then usage_file="${cg}/memory.usage_in_bytes"; else usage_file="${cg}/memory.current"; fi
check "  whose limit is the cap" test "$(cat "${cg}/$(limit_file)" 2>/dev/null)" = "${CAP}"

postmaster=$(head -n 1 "${dir}/data/postmaster.pid")
# in_cgroup PID...: each PID still alive is in the cgroup (one that has exited since is left out).
in_cgroup() {
  local pid
  for pid in "$@"; do
    grep -qx "${pid}" "${cg}/cgroup.procs" || [[ ! -d "/proc/${pid}" ]] || {
      printf '  pid %s (%s) is not in %s\n' "${pid}" "$(cat "/proc/${pid}/comm" 2>/dev/null)" "${cg}"
      return 1
    }
  done
}
mapfile -t children < <(pgrep -P "${postmaster}")
check "the postmaster is in the cgroup" in_cgroup "${postmaster}"
check "  it has its children (checkpointer, background writer, WAL writer...)" test "${#children[@]}" -ge 3
check "  and each of the ${#children[@]} is in the cgroup too" in_cgroup "${children[@]}"

cached=$(field "${cap_file}" cached_at_start_bytes)
printf 'cached at start: %s bytes of the data directory'"'"'s %s\n' "${cached}" "$(field "${cap_file}" data_bytes)"
check "the page cache held little of the data directory at the start (< 32 MB)" \
  test "${cached:-x}" -lt "${CACHED_AT_START_MAX}"

# The block device under DIR, as MAJ:MIN (none for tmpfs, overlay and the like: 0:NN).
device=$(findmnt -n -o MAJ:MIN --target "${dir}" | tr -d ' ')
sectors_read() {
  local major minor _name _reads _merged sectors _
  while read -r major minor _name _reads _merged sectors _; do
    [[ "${major}:${minor}" != "${device}" ]] || { printf '%s\n' "${sectors}"; return 0; }
  done </proc/diskstats
  return 1
}
device_reads=1
if [[ "${device}" == 0:* || -z "${device}" ]] || ! sectors_read >/dev/null; then
  printf "SKIPPED (device reads): %s's filesystem has no block device (%s) in /proc/diskstats\n" \
    "${dir}" "${device:-none}"
  device_reads=0
fi

# The cgroup's usage every 0.1 s until told to stop (or 10 minutes): "MAX SAMPLES" at the end.
sample_usage() {
  local max=0 n=0 usage
  while [[ ! -e "${data}/stop-sampling" && ${n} -lt 6000 ]]; do
    usage=$(<"${usage_file}") || break  # the cgroup gone: the server with it
    ((usage <= max)) || max=${usage}
    n=$((n + 1))
    sleep 0.1
  done
  printf '%s %s\n' "${max}" "${n}" >"${data}/sampled"
}
sample_usage &
sampler_pid=$!

[[ ${device_reads} -eq 0 ]] || sectors_before=$(sectors_read)
# One session, no parallel workers: the backend does every read, and its read_bytes
# (/proc/PID/io: what it fetched from the storage layer, not from the page cache) says so.
scan="select count(*), sum(length(pad)) from big"
check "the table read twice in the cgroup" timeout 300 psql "${admin}" -XAtq -v ON_ERROR_STOP=1 \
  -o "${data}/scans" -c "set max_parallel_workers_per_gather = 0" -c "${scan}" -c "${scan}" \
  -c "select pg_read_file('/proc/' || pg_backend_pid() || '/io')"
[[ ${device_reads} -eq 0 ]] || sectors_after=$(sectors_read)
touch "${data}/stop-sampling"
wait "${sampler_pid}" || true
sampler_pid=""

check "  each read saw every row" test "$(grep -c '^850000|425000000$' "${data}/scans")" = 2
max_usage=0 samples=0
[[ ! -s "${data}/sampled" ]] || read -r max_usage samples <"${data}/sampled"
printf 'usage sampled: max %s bytes in %s samples (the cap %s, +5 %% %s)\n' \
  "${max_usage}" "${samples}" "${CAP}" "${CAP_SLACK}"
check "  sampled at least 5 times" test "${samples}" -ge 5
check "  the cgroup's usage never above the cap + 5 %" test "${max_usage}" -le "${CAP_SLACK}"
check "  but above half the cap: the reads' page cache was charged to it" \
  test "${max_usage}" -gt $((CAP / 2))
backend_read=$(sed -n 's/^read_bytes: //p' "${data}/scans")
printf "the backend's read_bytes: %s (twice the table: %s)\n" "${backend_read}" $((2 * table_bytes))
# Uncapped, the second read would find the table in the page cache the first one filled.
check "the backend fetched the table from storage twice (at least 1.5 times its size)" \
  test "${backend_read:-0}" -ge $((table_bytes * 3 / 2))
if [[ ${device_reads} -eq 1 ]]; then
  device_bytes=$(((sectors_after - sectors_before) * 512))
  printf 'device %s: %s sectors read during the reads (%s bytes)\n' "${device}" \
    $((sectors_after - sectors_before)) "${device_bytes}"
  check "the device under DIR read at least half the table meanwhile" \
    test "${device_bytes}" -ge $((table_bytes / 2))
fi

"${pgcluster}" memory "${dir}" >"${data}/memory"
printf 'pgcluster memory: %s\n' "$(tr '\n' ' ' <"${data}/memory")"
check "pgcluster memory: the cap" has_line "${data}/memory" "^cap_bytes=${CAP}\$"
peak=$(field "${data}/memory" peak_bytes)
check "  a peak (v2 before 5.19 has none) no higher than the cap + 5 %" \
  test "${peak:-0}" -le "${CAP_SLACK}"
check "  no OOM kill" has_line "${data}/memory" '^oom_kills=0$'

# Out of the cap again: the restart leaves the cgroup, which is deleted.
check "start without --memory: accepted" "${pgcluster}" start "${dir}"
new_postmaster=$(head -n 1 "${dir}/data/postmaster.pid")
check "  the server restarted" test "${new_postmaster}" != "${postmaster}"
check "  memory-cap is gone" test ! -e "${cap_file}"
# A v2-scope's directory goes once systemd sees its last process end: up to 5 s.
gone() { local _; for _ in {1..50}; do [[ -d "$1" ]] || return 0; sleep 0.1; done; return 1; }
check "  so is the old cgroup" gone "${cg}"
check "  and the postmaster is outside it" lacks_line "/proc/${new_postmaster}/cgroup" "/${cg##*/}\$"
check "pgcluster memory: nothing for an uncapped server" test -z "$("${pgcluster}" memory "${dir}")"

check "start --memory again: accepted" "${pgcluster}" start "${dir}" --memory "${CAP}"
cg=$(field "${cap_file}" cgroup)
cgroups_seen+=("${cg}")
check "  in a cgroup" test -d "${cg}"
check "stop: accepted" "${pgcluster}" stop "${dir}"
check "  the cgroup is deleted" gone "${cg}"
check "  and memory-cap" test ! -e "${cap_file}"

check_summary
