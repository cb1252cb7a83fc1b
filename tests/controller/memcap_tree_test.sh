#!/usr/bin/env bash
# The memory cap's mechanisms (controller/lib/memcap.sh, issue 38) against made-up cgroup trees,
# so that each is checked on any machine, whichever one it has itself: cgroup v2 as root (a
# cgroup at the top, the memory controller enabled for children, memory.max), v1 as root (a
# child of our own memory cgroup, memory.limit_in_bytes), v2 as a user (systemd-run --scope,
# here a stand-in on PATH), and none (a message naming what is missing and how to grant it).
# Then each mechanism's figures (v2 with and without memory.peak), and run's --db-memory values.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=tests/controller/lib/check.sh
source "${root}/tests/controller/lib/check.sh"
# shellcheck source=controller/lib/common.sh
source "${root}/controller/lib/common.sh"
# shellcheck source=controller/lib/memcap.sh
source "${root}/controller/lib/memcap.sh"
tmp="$(mktemp -d /tmp/bbmemcap.XXXXXX)"
trap 'rm -rf -- "${tmp}"' EXIT

ROOT_USER=1
is_root() { [[ ${ROOT_USER} -eq 1 ]]; }  # the tree decides, not who runs the test

# tree KIND: a made-up machine in t=${tmp}/KIND: its mounts, our cgroup, the hierarchies' files.
t=""
tree() {
  t="${tmp}/$1"
  mkdir -p "${t}/v2" "${t}/memory/process_api/us"
  export BB_CGROUP_MOUNTS="${t}/mounts" BB_SELF_CGROUP="${t}/self"
  : >"${t}/mounts"
  case "$1" in
    v2) printf 'cgroup2 %s cgroup2 rw,nosuid 0 0\n' "${t}/v2" >"${t}/mounts"
        printf 'cpu io memory pids\n' >"${t}/v2/cgroup.controllers"
        printf 'cpu\n' >"${t}/v2/cgroup.subtree_control"
        printf '0::/user.slice/x.scope\n' >"${t}/self" ;;
    v1) printf 'cgroup2 %s cgroup2 rw 0 0\ncgroup %s cgroup rw,nosuid,memory 0 0\n' "${t}/v2" "${t}/memory" >"${t}/mounts"
        : >"${t}/v2/cgroup.controllers"  # hybrid: v2 mounted, its memory controller bound to v1
        printf '4:memory:/process_api/us\n0::/\n' >"${t}/self" ;;
    none) printf 'cgroup %s cgroup rw,cpu 0 0\n' "${t}/memory" >"${t}/mounts"
          printf '2:cpu:/\n' >"${t}/self" ;;
  esac
}

fails() { ! "$@"; }  # in this shell: the function's globals stay visible

# A kernel's files in a cgroup that mkdir makes: memcap_launch writes the limit and the pid.
ran() { printf '%s\n' "$1" >"${tmp}/ran"; }

# cgroup v2 as root
tree v2
check "v2 root: planned as v2" memcap_plan brokerbench-pg-1
check "  at the hierarchy's top" test "${MEMCAP_KIND}:${MEMCAP_CGROUP}" = "v2:${t}/v2/brokerbench-pg-1"
check "  launches its command" memcap_launch brokerbench-pg-1 268435456 ran v2-command
check "  which ran" test "$(cat "${tmp}/ran")" = v2-command
check "  memory enabled for the children" grep -qx '+memory' "${t}/v2/cgroup.subtree_control"
check "  memory.max is the cap" test "$(cat "${t}/v2/brokerbench-pg-1/memory.max")" = 268435456
check "  the command's shell joined the cgroup" grep -qE '^[0-9]+$' "${t}/v2/brokerbench-pg-1/cgroup.procs"
printf '123456\n' >"${t}/v2/brokerbench-pg-1/memory.current"
printf '234567\n' >"${t}/v2/brokerbench-pg-1/memory.peak"
printf 'low 0\nhigh 0\nmax 9\noom 1\noom_kill 2\n' >"${t}/v2/brokerbench-pg-1/memory.events"
check "  figures: cap, usage, peak, OOM kills" test "$(memcap_figures v2 "${t}/v2/brokerbench-pg-1" | tr '\n' ' ')" = \
  "cap_bytes=268435456 usage_bytes=123456 peak_bytes=234567 oom_kills=2 "
rm "${t}/v2/brokerbench-pg-1/memory.peak"
check "  a kernel without memory.peak: no peak, not a made-up one" test \
  "$(memcap_figures v2 "${t}/v2/brokerbench-pg-1" | grep -c peak || true)" = 0

# cgroup v1 as root (this kind of machine: v2 mounted without the memory controller)
tree v1
check "v1 root: planned as v1" memcap_plan brokerbench-pg-2
check "  a child of our own memory cgroup" test "${MEMCAP_KIND}:${MEMCAP_CGROUP}" = \
  "v1:${t}/memory/process_api/us/brokerbench-pg-2"
check "  launches" memcap_launch brokerbench-pg-2 1073741824 ran v1-command
check "  memory.limit_in_bytes is the cap" test "$(cat "${MEMCAP_CGROUP}/memory.limit_in_bytes")" = 1073741824
cg="${MEMCAP_CGROUP}"
printf '1000\n' >"${cg}/memory.usage_in_bytes"
printf '2000\n' >"${cg}/memory.max_usage_in_bytes"
printf 'oom_kill_disable 0\nunder_oom 0\noom_kill 0\n' >"${cg}/memory.oom_control"
check "  figures" test "$(memcap_figures v1 "${cg}" | tr '\n' ' ')" = \
  "cap_bytes=1073741824 usage_bytes=1000 peak_bytes=2000 oom_kills=0 "
rm -f "${cg}"/*
check "  removed once empty" memcap_remove v1 "${cg}"
check "  (gone)" test ! -e "${cg}"
ROOT_USER=0
check "v1 as a user: refused" fails memcap_plan x
check "  naming v1 and root" grep -q "cgroup v1's (${t}/memory), in which only root" <<<"${MEMCAP_PROBLEM}"

# cgroup v2 as a user: a systemd scope, where the user manager delegates memory
tree v2
mkdir -p "${tmp}/bin" "${t}/v2/user.slice/user@1000.service/app.slice"
cat >"${tmp}/bin/systemd-run" <<EOF
#!/bin/sh
# stand-in: the delegation probe prints its cgroup; a start records its arguments
case "\$*" in
  *"sed -n"*) echo "/user.slice/user@1000.service/app.slice/run-1.scope" ;;
  *) printf '%s\n' "\$*" >"${tmp}/scope-args" ;;
esac
EOF
cat >"${tmp}/bin/systemctl" <<'EOF'
#!/bin/sh
echo "/user.slice/user@1000.service/app.slice/$6"
EOF
chmod +x "${tmp}/bin/systemd-run" "${tmp}/bin/systemctl"
PATH="${tmp}/bin:${PATH}"
check "v2 user, memory not delegated: refused" fails memcap_plan y
check "  saying how to grant it" grep -q 'Delegate=pids memory cpu' <<<"${MEMCAP_PROBLEM}"
: >"${t}/v2/user.slice/user@1000.service/app.slice/memory.max"
check "v2 user, delegated: planned as a scope" memcap_plan y
check "  (v2-scope)" test "${MEMCAP_KIND}" = v2-scope
check "  launches through systemd-run, without as_db_user" memcap_launch y 536870912 as_db_user /bin/pg_ctl start
check "  with MemoryMax" grep -q -- "-p MemoryMax=536870912 -- /bin/pg_ctl start" "${tmp}/scope-args"
check "  its cgroup from systemctl" test "${MEMCAP_CGROUP}" = "${t}/v2/user.slice/user@1000.service/app.slice/$(sed 's/.*--unit=\([^ ]*\).*/\1/' "${tmp}/scope-args").scope"

# no memory cgroup at all
ROOT_USER=1
tree none
check "no memory controller: refused" fails memcap_plan z
check "  saying so and what to do" grep -q 'no memory cgroup.*cgroup_enable=memory' <<<"${MEMCAP_PROBLEM}"

# run --db-memory values
run_error() { { BB_DATA_DIR="${tmp}/data" "${root}/controller/run" "$@" >/dev/null && return 1; } 2>&1; true; }
for bad in 0% 101% 8 256 -1G 32M 1.2.3G 8%% abc; do
  check "run --db-memory ${bad}: a usage error naming it" \
    grep -q -- "--db-memory: '${bad}' is not a size" <(run_error --db-memory "${bad}")
done
check "run --db-memory with --db: a usage error" \
  grep -q -- "--db-memory caps the embedded cluster" <(run_error --db-memory 1G --db "host=/nonexistent")
# shellcheck source=controller/lib/run-options.sh
source "${root}/controller/lib/run-options.sh"
check "sizes: 256M" test "$(memory_bytes 256M)" = 268435456
check "sizes: 1.5GiB" test "$(memory_bytes 1.5GiB)" = 1610612736
check "sizes: 1100MB" test "$(memory_bytes 1100MB)" = 1153433600
check "8% is a request" memory_request_valid 8%
check "0.5% is a request" memory_request_valid 0.5%
check "64M is the smallest" memory_request_valid 64M

# A cap that leaves the backends too little of their own (memory_settings sizes shared_buffers)
check "97 MB, 4 connections: too small" fails cap_too_small 97 24 4
check "  saying what it leaves and what they take" \
  grep -q '^97 MB leaves 73 MB beside shared_buffers (24 MB) for 4 Brokerage House connections .* about 128 MB: expect out-of-memory kills' \
  <(cap_too_small 97 24 4)
check "256 MB, 4 connections: enough" cap_too_small 256 64 4
check "256 MB, 10 connections: too small" fails cap_too_small 256 64 10
check "1108 MB, 4 connections: enough, and silent" test -z "$(cap_too_small 1108 277 4)"

check_summary
