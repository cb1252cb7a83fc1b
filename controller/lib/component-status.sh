# shellcheck shell=bash disable=SC2034  # COMPONENT_* are read by the scripts that source it
# A component's state from its directory (see controller/remote-exec): sourced by remote-exec,
# which answers for hosts the controller reaches by ssh, and by controller/run, which asks for
# its own host's components itself: once a second, without starting a process (the run's
# controller is on the database's host, so what it costs is taken from the database).
#
# component_state DIR: sets COMPONENT_STATE to running (COMPONENT_DETAIL: its pid), exited
# (COMPONENT_DETAIL: its exit status) or vanished (no status and no process: the supervisor
# itself was killed). Builtins only.
COMPONENT_STATE=""
COMPONENT_DETAIL=""
component_state() {
  local dir="$1"
  COMPONENT_DETAIL=""
  if [[ -s "${dir}/remote-exec.rc" ]] && read -r COMPONENT_DETAIL <"${dir}/remote-exec.rc"; then
    COMPONENT_STATE=exited
  elif [[ -s "${dir}/remote-exec.pid" ]] && read -r COMPONENT_DETAIL <"${dir}/remote-exec.pid" &&
    kill -0 "${COMPONENT_DETAIL}" 2>/dev/null; then
    COMPONENT_STATE=running
  elif [[ -s "${dir}/remote-exec.rc" ]] && read -r COMPONENT_DETAIL <"${dir}/remote-exec.rc"; then
    COMPONENT_STATE=exited  # ended between the two tests
  else
    COMPONENT_STATE=vanished
  fi
}
