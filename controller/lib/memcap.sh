# shellcheck shell=bash
# shellcheck disable=SC2034 # MEMCAP_* are read by controller/pgcluster and controller/run
# The memory cap of a pgcluster cluster (run --db-memory, issue 38): a memory cgroup around
# every process of the cluster, so that the server's memory and the page cache of its files
# together stay under the cap, and a big machine behaves like one with that much memory for
# the database. Sourced by controller/pgcluster (start --memory, memory) and controller/run
# (memcap_plan, before anything starts); needs lib/common.sh.
#
# Three ways to make the cgroup, the first the machine allows:
#   v2       cgroup v2 with the memory controller, as root: a new cgroup beside systemd's at the
#            hierarchy's top (v2 lets a cgroup with processes of its own, such as ours, give no
#            controller to children), memory.max = the cap
#   v2-scope cgroup v2 as a user: `systemd-run --user --scope -p MemoryMax=` starts the server
#            in a transient scope of the user's manager, which must delegate memory to it
#   v1       cgroup v1's memory hierarchy, as root: a child of our own memory cgroup (so any cap
#            above us still holds), memory.limit_in_bytes = the cap
# Swap is not counted or capped: a server swapping its shared buffers out measures the disk
# twice; the machines this is for run without swap, and the report shows the cgroup's peak.
#
# The cgroup charges a page of the page cache to the cgroup of whoever read it first. The load
# (and any earlier run) read and wrote the whole database outside the cap, and those pages would
# serve reads for nothing: the server is stopped (its shutdown checkpoint writes every dirty
# page), each file of the data directory is dropped from the page cache (posix_fadvise
# DONTNEED through dd iflag=nocache count=0), what is still cached is measured (fincore) and
# recorded, and the server starts inside the new cgroup. So every capped start is a cold start.
#
# Tests point BB_CGROUP_MOUNTS (a file in /proc/self/mounts' format) and BB_SELF_CGROUP (in
# /proc/self/cgroup's) at a made-up tree.

MEMCAP_KIND=""     # v2 | v2-scope | v1
MEMCAP_CGROUP=""   # the cgroup's directory (v2-scope: known once the server runs)
MEMCAP_PROBLEM=""  # why no cgroup can be made, and how to grant one

# The mount point of the cgroup v2 hierarchy, and of v1's memory hierarchy (empty if none).
cgroup_v2_mount() {
  local _ mount type
  while read -r _ mount type _; do
    [[ "${type}" != cgroup2 ]] || { printf '%s\n' "${mount}"; return; }
  done <"${BB_CGROUP_MOUNTS:-/proc/self/mounts}"
}
cgroup_v1_memory_mount() {
  local _ mount type options
  while read -r _ mount type options _; do
    [[ "${type}" != cgroup || ",${options}," != *,memory,* ]] || { printf '%s\n' "${mount}"; return; }
  done <"${BB_CGROUP_MOUNTS:-/proc/self/mounts}"
}

# Our own cgroup in v1's memory hierarchy ("/" at its top).
self_v1_memory_cgroup() {
  local _ controllers path
  while IFS=: read -r _ controllers path; do
    [[ ",${controllers}," != *,memory,* ]] || { printf '%s\n' "${path}"; return; }
  done <"${BB_SELF_CGROUP:-/proc/self/cgroup}"
}

# memcap_plan NAME: how a cgroup for the cluster named NAME would be made on this machine
# (MEMCAP_KIND, and MEMCAP_CGROUP for v2 and v1), or false with MEMCAP_PROBLEM. Makes nothing.
memcap_plan() {
  local name="$1" v2 v1 self
  MEMCAP_KIND="" MEMCAP_CGROUP="" MEMCAP_PROBLEM=""
  v2=$(cgroup_v2_mount)
  if [[ -n "${v2}" ]] && grep -qw memory "${v2}/cgroup.controllers" 2>/dev/null; then
    if is_root; then
      MEMCAP_KIND=v2 MEMCAP_CGROUP="${v2}/${name}"
      return 0
    fi
    if scope_delegates_memory; then
      MEMCAP_KIND="v2-scope"
      return 0
    fi
    MEMCAP_PROBLEM="cgroup v2 has the memory controller, but not for this user: systemd's user manager does not delegate it to the user's scopes (systemd-run --user --scope -p MemoryMax= made no memory.max). Grant it with 'sudo systemctl edit user@.service' adding [Service] Delegate=pids memory cpu, then log in again; or run as root"
    return 1
  fi
  v1=$(cgroup_v1_memory_mount)
  if [[ -n "${v1}" ]]; then
    if ! is_root; then
      MEMCAP_PROBLEM="this machine's memory controller is cgroup v1's (${v1}), in which only root makes cgroups: run as root"
      return 1
    fi
    self=$(self_v1_memory_cgroup)
    MEMCAP_KIND=v1 MEMCAP_CGROUP="${v1}${self%/}/${name}"
    return 0
  fi
  MEMCAP_PROBLEM="this machine has no memory cgroup: neither cgroup v2 with the memory controller (${v2:-no cgroup2 mount}) nor cgroup v1's memory hierarchy. On Linux, boot with the memory controller enabled (cgroup_enable=memory) or use systemd's unified hierarchy"
  return 1
}

# Whether a transient scope of the user's systemd manager gets a memory.max of its own.
scope_delegates_memory() {
  local v2 cg
  command -v systemd-run >/dev/null || return 1
  v2=$(cgroup_v2_mount)
  cg=$(timeout 20 systemd-run --user --scope --quiet -p MemoryMax=1G -- \
    sh -c "sed -n 's/^0:://p' /proc/self/cgroup" 2>/dev/null) || return 1
  # The scope is gone once sh has ended; its parent slice tells the same of delegation.
  [[ -n "${cg}" && -e "${v2}${cg%/*}/memory.max" ]]
}

# memcap_launch NAME BYTES COMMAND...: runs COMMAND (and so the server it starts) in a new
# cgroup capped at BYTES; sets MEMCAP_KIND and MEMCAP_CGROUP. COMMAND may start with the
# function as_db_user; in a v2-scope (never root, whom as_db_user leaves as is) it is dropped,
# since systemd-run runs programs, not functions.
memcap_launch() {
  local name="$1" bytes="$2"
  shift 2
  memcap_plan "${name}" || die "${MEMCAP_PROBLEM}"
  case "${MEMCAP_KIND}" in
    v2 | v1)
      [[ ! -d "${MEMCAP_CGROUP}" ]] || rmdir -- "${MEMCAP_CGROUP}" 2>/dev/null ||
        die "the cgroup ${MEMCAP_CGROUP} is left over from an earlier start and still holds processes: stop them first"
      if [[ "${MEMCAP_KIND}" == v2 ]]; then
        grep -qw memory "${MEMCAP_CGROUP%/*}/cgroup.subtree_control" ||
          printf '+memory\n' >"${MEMCAP_CGROUP%/*}/cgroup.subtree_control" ||
          die "cannot enable the memory controller in ${MEMCAP_CGROUP%/*}/cgroup.subtree_control"
      fi
      mkdir -- "${MEMCAP_CGROUP}" || die "cannot make the cgroup ${MEMCAP_CGROUP}"
      printf '%s\n' "${bytes}" >"${MEMCAP_CGROUP}/$(limit_file)" ||
        die "cannot set the memory cap of ${MEMCAP_CGROUP} to ${bytes} bytes"
      # The subshell joins the cgroup, then starts COMMAND: whatever it forks is inside.
      (printf '%s\n' "${BASHPID}" >"${MEMCAP_CGROUP}/cgroup.procs" && "$@")
      ;;
    v2-scope)
      [[ "$1" != as_db_user ]] || shift
      local unit
      unit="${name}-$(date +%s)"
      systemd-run --user --scope --quiet --unit="${unit}" -p MemoryMax="${bytes}" -- "$@" || return
      MEMCAP_CGROUP="$(cgroup_v2_mount)$(systemctl --user show -p ControlGroup --value "${unit}.scope")"
      ;;
  esac
}

limit_file() { if [[ "${MEMCAP_KIND}" == v1 ]]; then echo memory.limit_in_bytes; else echo memory.max; fi; }

# memcap_figures KIND CGROUP: the cgroup's cap, usage, peak and out-of-memory kills, as
# key=value lines (a figure the kernel does not give is left out: memory.peak came in 5.19).
memcap_figures() {
  local kind="$1" cg="$2" f
  MEMCAP_KIND="${kind}"
  printf 'cap_bytes=%s\n' "$(<"${cg}/$(limit_file)")"
  if [[ "${kind}" == v1 ]]; then
    printf 'usage_bytes=%s\n' "$(<"${cg}/memory.usage_in_bytes")"
    printf 'peak_bytes=%s\n' "$(<"${cg}/memory.max_usage_in_bytes")"
    f="${cg}/memory.oom_control"
  else
    printf 'usage_bytes=%s\n' "$(<"${cg}/memory.current")"
    [[ ! -r "${cg}/memory.peak" ]] || printf 'peak_bytes=%s\n' "$(<"${cg}/memory.peak")"
    f="${cg}/memory.events"
  fi
  local key value
  while read -r key value; do
    [[ "${key}" != oom_kill ]] || printf 'oom_kills=%s\n' "${value}"
  done <"${f}"
}

# memcap_remove KIND CGROUP: deletes the cgroup once the server has stopped (a scope goes by
# itself when its last process ends). The pages it still charges go to its parent.
memcap_remove() {
  [[ "$1" != v2-scope && -d "$2" ]] || return 0
  rmdir -- "$2" 2>/dev/null || warn "cannot delete the cgroup $2 (processes still in it?)"
}

# evict_from_page_cache DIR: drops every file under DIR from the page cache and prints how many
# bytes of them are still cached. posix_fadvise drops clean pages only: the files are written
# out first (sync FILE... fsyncs each), as a server with fsync=off leaves them dirty even after
# its shutdown checkpoint. Stop the server first.
evict_from_page_cache() {
  local dir="$1"
  find "${dir}" -type f -size +0 -exec sync -- {} + 2>/dev/null || true
  find "${dir}" -type f -size +0 -exec dd iflag=nocache count=0 status=none if={} \; 2>/dev/null || true
  cached_bytes "${dir}"
}

# cached_bytes DIR: bytes of the files under DIR in the page cache (fincore).
cached_bytes() {
  local sum=0 bytes
  while read -r bytes; do
    sum=$((sum + bytes))
  done < <(find "$1" -type f -size +0 -print0 | xargs -0 -r fincore --bytes --noheadings --output RES 2>/dev/null)
  printf '%s\n' "${sum}"
}

# cap_too_small MB SHARED_MB CONNECTIONS: false, saying why, when a cap of MB with shared_buffers
# of SHARED_MB leaves the server's processes too little of their own. A backend of this kit
# holds about 10-40 MB besides shared memory (catalog caches, the frames' plans: 12 MB measured
# at 1000 x 300, 36 MB in the one OOM kill seen, under a 97 MB cap), so 16 MB for each of the
# Brokerage House's CONNECTIONS and for four more (autovacuum, the monitor). Below that the
# kernel kills backends: a run with OOM kills measures crashes, not the cap.
cap_too_small() {
  local mb="$1" shared="$2" connections="$3"
  local own=$(((connections + 4) * 16))
  ((mb - shared < own)) || return 0
  printf '%s MB leaves %s MB beside shared_buffers (%s MB) for %s Brokerage House connections and the server'"'"'s own processes, which take about %s MB: expect out-of-memory kills of backends (the report counts them); a larger cap, or a smaller --set shared_buffers, avoids them\n' \
    "${mb}" "$((mb - shared))" "${shared}" "${connections}" "${own}"
  return 1
}

# --- pgcluster's side (needs its load_env, is_running and start_server) ---------------------

# start_capped DIR BYTES OPTIONS: the server started cold inside a new memory cgroup of BYTES,
# its data directory's files dropped from the page cache first (lib/memcap.sh); DIR/memory-cap
# says which cgroup and how much of the files the page cache still held.
start_capped() {
  local dir="$1" bytes="$2" name cached files
  name="brokerbench-pg-$(printf '%s' "${dir}" | cksum | cut -d ' ' -f 1)"
  memcap_plan "${name}" || die "start: --memory: ${MEMCAP_PROBLEM}"
  cached=$(evict_from_page_cache "${dir}/data")
  files=$(du -sb -- "${dir}/data" | cut -f 1)
  LAUNCH=(memcap_launch "${name}" "${bytes}")
  start_server "${dir}" "$3"
  LAUNCH=()
  # More than 5 % of the files still cached would serve reads the cap does not see.
  ((cached * 20 <= files)) || printf 'pgcluster: start: %s of the %s bytes of %s/data stay in the page cache after eviction: reads of them will not reach the device\n' \
    "${cached}" "${files}" "${dir}" >&2
  printf 'kind=%s\ncgroup=%s\ndata_bytes=%s\ncached_at_start_bytes=%s\n' "${MEMCAP_KIND}" \
    "${MEMCAP_CGROUP}" "${files}" "${cached}" >"${dir}/memory-cap"
}

cap_field() { sed -n "s/^$2=//p" "$1/memory-cap"; }

# forget_cap DIR: once its server has stopped, the cgroup of DIR/memory-cap deleted, and the file.
forget_cap() {
  [[ -f "$1/memory-cap" ]] || return 0
  memcap_remove "$(cap_field "$1" kind)" "$(cap_field "$1" cgroup)"
  rm -f -- "$1/memory-cap"
}

# The running server's memory cgroup as key=value lines (lib/memcap.sh), or nothing without one.
cmd_memory() {
  local dir="$1"
  load_env "${dir}"
  is_running "${dir}" && [[ -f "${dir}/memory-cap" ]] || return 0
  cat "${dir}/memory-cap"
  memcap_figures "$(cap_field "${dir}" kind)" "$(cap_field "${dir}" cgroup)"
}
