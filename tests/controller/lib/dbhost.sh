# shellcheck shell=bash
# For multi-host tests with PostgreSQL on the namespace host "db" (the hosts come from
# tests/controller/lib/netns.sh). Sourced, never run.
#
#   dbhost_dirs ROOT PREFIX  # `data` (a new /tmp/PREFIX.XXXXXX, exported as BB_DATA_DIR) and
#                            # `pgdir` (the cluster's directory in it); traps EXIT so that the
#                            # cluster is stopped, the namespaces torn down and `data` removed
#   dbhost_start             # after netns_setup db ...: the cluster made and started on host
#                            # db, listening on db's address only, trusting the test's subnet;
#                            # reachable from this namespace with
#                            # `pgcluster conninfo ${pgdir}` (the socket and its password)

dbhost_dirs() {
  DBHOST_ROOT="$1"
  data="$(mktemp -d "/tmp/$2.XXXXXX")"
  chmod 0711 "${data}"
  export BB_DATA_DIR="${data}"
  pgdir="${data}/pg-db"
  trap _dbhost_cleanup EXIT
  trap 'exit 130' INT TERM HUP
}

_dbhost_cleanup() {
  if [[ -f "${pgdir}/data/PG_VERSION" ]]; then
    netns_exec db "${DBHOST_ROOT}/controller/pgcluster" stop "${pgdir}" >/dev/null 2>&1 || true
  fi
  netns_teardown
  rm -rf -- "${data}"
}

dbhost_start() {
  "${DBHOST_ROOT}/controller/pgcluster" init "${pgdir}" --port 5432 --throwaway >/dev/null
  printf "listen_addresses = '%s'\n" "$(netns_addr db)" >>"${pgdir}/data/brokerbench.conf"
  printf 'host all all %s.0/24 trust\n' "${NETNS_NET}" >>"${pgdir}/data/pg_hba.conf"
  netns_exec db "${DBHOST_ROOT}/controller/pgcluster" start "${pgdir}" >/dev/null
}
