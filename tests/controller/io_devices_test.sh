#!/usr/bin/env bash
# postprocess/bb-io-devices, which finds the block devices of the database's data directory and
# WAL for controller/sysmon, on this machine: a directory of the checkout against the device
# stat(1) and /sys/dev/block name for it; /dev/shm (tmpfs) said to be no block device; a
# pg_wal that is a link to another filesystem followed; data and WAL on one device said so; a
# server that does not answer (--db) falls back to every whole disk and says why; bad usage
# named. Then sysmon --pgdata: io-devices.conf, and diskstats.csv with that device's rows. No
# database, no run.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=tests/controller/lib/check.sh
source "${root}/tests/controller/lib/check.sh"
work="$(mktemp -d /tmp/bbiodevtest.XXXXXX)"
# A directory of the checkout, standing in for a data directory (build*/ is git's to ignore).
data="${root}/build-io-devices-test.$$"
shm=""
cleanup() {
  rm -rf -- "${work}" "${data}"
  [[ -z "${shm}" ]] || rm -rf -- "${shm}"
}
trap cleanup EXIT
devices="${root}/postprocess/bb-io-devices"

# value FILE KEY: the value of KEY= in FILE.
value() { sed -n "s/^$2=//p" "$1"; }
is() { [[ "$1" == "$2" ]] || { printf '  got:      %s\n  expected: %s\n' "$1" "$2"; return 1; }; }
matches() { [[ "$1" =~ $2 ]] || { printf '  got: %s\n  not matching: %s\n' "$1" "$2"; return 1; }; }

# The device of a path as stat(1) and /sys/dev/block name it, or "" when it is none.
expected_device() {
  local mm link
  mm=$(stat -L -c '%Hd:%Ld' "$1")
  link=$(readlink "/sys/dev/block/${mm}" 2>/dev/null) || { printf '\n'; return 0; }
  printf '%s\n' "${link##*/}"
}

# 1. The checkout's directory, with its pg_wal in it.
mkdir -p "${data}/pg_wal"
want=$(expected_device "${data}")
out=$("${devices}" --out "${work}/a.conf" --pgdata "${data}")
if [[ -n "${want}" ]]; then
  check "the checkout's directory is on ${want}, as /sys/dev/block names $(stat -c '%Hd:%Ld' "${data}")" \
    is "$(value "${work}/a.conf" data_device)" "${want}"
  check "its major:minor is stat's" is "$(value "${work}/a.conf" data_major_minor)" "$(stat -c '%Hd:%Ld' "${data}")"
  check "a pg_wal inside it: data and WAL on one device" is "$(value "${work}/a.conf" data_and_wal)" 'one device'
  check "the one device is printed once, for the sampler" is "${out}" "${want}"
  check "and listed in the file" is "$(value "${work}/a.conf" devices)" "${want}"
  check "the device is in /proc/diskstats" grep -qE "^ *[0-9]+ +[0-9]+ ${want} " /proc/diskstats
else
  # A container's overlay: no disk of its own. Said, not a crash.
  printf 'SKIPPED: the checkout is on no block device (%s): the device checks need one\n' \
    "$(stat -f -c %T "${data}")"
  check "a checkout on no block device is said so" \
    matches "$(value "${work}/a.conf" data_why)" 'which is no block device'
fi
check "found from --pgdata" is "$(value "${work}/a.conf" found_by)" '--pgdata'

# 2. tmpfs: no block device.
if [[ "$(stat -f -c %T /dev/shm 2>/dev/null)" == tmpfs ]]; then
  shm=$(mktemp -d /dev/shm/bbiodevtest.XXXXXX)
  out=$("${devices}" --out "${work}/b.conf" --pgdata "${shm}")
  check "a data directory on tmpfs: no device, said plainly" \
    matches "$(value "${work}/b.conf" data_why)" "^${shm} is on tmpfs \([^,]*, device 0:[0-9]+\), which is no block device"
  check "... and no data_device" is "$(value "${work}/b.conf" data_device)" ''
  check "a missing pg_wal is named" is "$(value "${work}/b.conf" wal_why)" "cannot stat ${shm}/pg_wal: No such file or directory"
  check "nothing to sample: an empty line" is "${out}" ''
  check "data and WAL: not known" is "$(value "${work}/b.conf" data_and_wal)" 'not known'

  # 3. pg_wal a link to tmpfs: the link is followed.
  rmdir "${data}/pg_wal"
  ln -s "${shm}" "${data}/pg_wal"
  "${devices}" --out "${work}/c.conf" --pgdata "${data}" >/dev/null
  check "pg_wal's link is followed and shown" is "$(value "${work}/c.conf" wal_path)" "${data}/pg_wal -> ${shm}"
  check "the WAL on tmpfs: no device" matches "$(value "${work}/c.conf" wal_why)" "^${data}/pg_wal is on tmpfs"
  check "the data's device unchanged" is "$(value "${work}/c.conf" data_device)" "${want}"
else
  printf 'SKIPPED: /dev/shm is not a tmpfs here\n'
fi

# 4. A server that does not answer: every whole disk, and why.
"${devices}" --out "${work}/d.conf" --db "host=${work}/nosocket dbname=x connect_timeout=2" >"${work}/d.out"
check "a server that does not answer: every whole disk" is "$(value "${work}/d.conf" found_by)" 'every whole disk'
check "... and why: show data_directory failed, with psql's reason" \
  matches "$(value "${work}/d.conf" why)" '^the server did not tell its data directory \(show data_directory: .*nosocket'
whole=$(for d in /sys/block/*; do
  d="${d##*/}"
  [[ "${d}" =~ ^(loop|ram|zram) ]] || ! grep -qE "^ *[0-9]+ +[0-9]+ ${d} " /proc/diskstats || printf '%s\n' "${d}"
done | sort | paste -sd, -)
check "the whole disks are /sys/block's but loop, ram and zram (${whole})" is "$(cat "${work}/d.out")" "${whole}"

# 5. Bad usage, named.
set +e
err=$("${devices}" --out "${work}/e.conf" --pgdata "${work}/nowhere" 2>&1); rc=$?
set -e
check "a --pgdata that is not a directory: exit 2" is "${rc}" 2
check "... naming it" is "${err}" "bb-io-devices: --pgdata: '${work}/nowhere' is not a directory"
set +e
"${devices}" --pgdata "${data}" >/dev/null 2>&1; rc=$?
set -e
check "no --out: exit 2" is "${rc}" 2

# 6. sysmon --pgdata: the devices found, and their counters sampled.
"${root}/controller/sysmon" "${work}/sys" --seconds 1 --pgdata "${data}"
check "sysmon wrote io-devices.conf" nonempty "${work}/sys/io-devices.conf"
if [[ -n "${want}" ]]; then
  check "sysmon: diskstats.csv's header" is "$(head -1 "${work}/sys/diskstats.csv")" \
    'time_us,device,reads,read_sectors,read_ms,writes,write_sectors,write_ms,io_ms'
  check "sysmon: a row of ${want} a second, the first at once, seven counts each" \
    is "$(grep -cE "^[0-9]+,${want}(,[0-9]+){7}$" "${work}/sys/diskstats.csv")" 2
fi
"${root}/controller/sysmon" "${work}/sys2" --seconds 1
check "sysmon without --pgdata or --db: no device file" test ! -e "${work}/sys2/io-devices.conf"
check "... and no diskstats.csv" test ! -e "${work}/sys2/diskstats.csv"
check_summary
