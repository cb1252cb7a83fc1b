# shellcheck shell=bash disable=SC2034  # COMPONENT_* are read by the scripts that source it
# A component's state from its directory (see controller/remote-exec): sourced by remote-exec,
# which answers for hosts the controller reaches by ssh, and by controller/run, which asks for
# its own host's components itself: once a second, without starting a process (the run's
# controller is on the database's host, so what it costs is taken from the database).
#
# component_state DIR: sets COMPONENT_STATE to running (COMPONENT_DETAIL: its pid), exited
# (COMPONENT_DETAIL: its exit status) or vanished (no status and no supervisor: the supervisor
# itself was killed). A component that has ended while its supervisor (the pid in
# remote-exec.pgid) is still writing its status is running a moment more: on a busy machine that
# took long enough for a poll to fall between the two, and a run failed saying its customer
# emulator, which had ended normally, had vanished. Builtins only.
COMPONENT_STATE=""
COMPONENT_DETAIL=""
component_state() {
  local dir="$1"
  COMPONENT_DETAIL=""
  if [[ -s "${dir}/remote-exec.rc" ]] && read -r COMPONENT_DETAIL <"${dir}/remote-exec.rc"; then
    COMPONENT_STATE=exited
  elif [[ -s "${dir}/remote-exec.pid" ]] && read -r COMPONENT_DETAIL <"${dir}/remote-exec.pid" &&
    { kill -0 "${COMPONENT_DETAIL}" 2>/dev/null || supervisor_runs "${dir}"; }; then
    COMPONENT_STATE=running
  elif [[ -s "${dir}/remote-exec.rc" ]] && read -r COMPONENT_DETAIL <"${dir}/remote-exec.rc"; then
    COMPONENT_STATE=exited  # ended between the two tests
  else
    COMPONENT_STATE=vanished
  fi
}

# supervisor_runs DIR: the component's supervisor (the pid in remote-exec.pgid) still runs.
supervisor_runs() {
  local pid
  [[ -s "$1/remote-exec.pgid" ]] && read -r pid <"$1/remote-exec.pgid" && kill -0 "${pid}" 2>/dev/null
}
