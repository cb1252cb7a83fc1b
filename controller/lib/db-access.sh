# shellcheck shell=bash
# shellcheck disable=SC2034 # its globals are read by the scripts that source it
# The database a command is about to use (run, build-db, check-db), looked at first: a wrong
# password, a database or role that does not exist, a server that does not answer, or a schema
# left half-loaded by an earlier load fail at once, naming the connection string (its password
# as ***) and saying what to do, instead of a raw SQL error from a later step. The kit needs no
# more than a role that owns its database (issue 30). Sourced; psql gets the connection string
# without its password (hide_password put it in PGPASSWORD).

DB_ACCESS_SCHEMA="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/loader/sql/1-tables.sql"
DB_PROBLEM=""  # what db_reachable or db_load_state found wrong, as one sentence
DB_ERROR=""    # psql's own message, whole

# db_reachable CONNINFO SHOWN: 0 when psql connects to CONNINFO (SHOWN: the string as it may be
# shown); otherwise 1, with DB_PROBLEM naming SHOWN, libpq's reason and what to do.
db_reachable() {
  local conninfo="$1" shown="$2" reason advice="" name=""
  # -w: never a password prompt; a missing password is an error like the others.
  DB_ERROR=$(psql "${conninfo}" -XAtqw -c 'select 1' 2>&1 >/dev/null) && return 0
  # libpq's message on one line, without psql's prefix, warnings and libpq's double spaces.
  reason=$(printf '%s\n' "${DB_ERROR}" | { grep -v '^WARNING: ' || true; } |
    sed 's/^psql: error: //; s/^[[:space:]]*//' | tr -s ' \n' '  ')
  reason="${reason% }"
  [[ ! "${reason}" =~ (database|role)\ \"([^\"]+)\"\ does\ not\ exist ]] || name="${BASH_REMATCH[2]}"
  case "${reason}" in
    *"password authentication failed"*)
      advice="the server refused the password: correct it (password= in the connection string, PGPASSWORD, or the password file ~/.pgpass)" ;;
    *"no password supplied"*)
      advice="the server asks for a password and was given none: add password=... to the connection string, or set PGPASSWORD, or add a line to ~/.pgpass" ;;
    *"database \""*"\" does not exist"*)
      advice="create it first, as a role that may create databases (CREATE DATABASE \"${name}\" OWNER your_role: owning it is all the kit needs), or name an existing database with dbname=" ;;
    *"role \""*"\" does not exist"*)
      advice="name an existing role with user=, or have an administrator create it (CREATE ROLE \"${name}\" LOGIN PASSWORD '...')" ;;
    *"permission denied for database"* | *"not permitted to log in"*)
      advice="the role may not connect to it: have an administrator run GRANT CONNECT ON DATABASE (and ALTER ROLE ... LOGIN)" ;;
    *"no pg_hba.conf entry"*)
      advice="the server's pg_hba.conf admits no connection of this role to this database from here: ask its administrator for a line" ;;
    *"Connection refused"* | *"No such file or directory"* | *"could not translate host name"* | *"timeout expired"*)
      advice="no server answers there: start it, or correct host= and port=" ;;
  esac
  DB_PROBLEM="the database refuses connections ('${shown}'): ${reason}${advice:+; ${advice}}"
  return 1
}

# db_load_state CONNINFO SHOWN: what the database holds of a brokerbench load, in DB_LOAD:
#   none                      none of the tables, no load record
#   "C SF ITD t"              a complete load (customers, scale factor, initial trade days)
#   partial                   anything else; DB_LOAD_TEXT says what is there
# DB_LOAD_SIZING: the record's sizing as bb-loader options, when there is a record. Returns 1
# (DB_PROBLEM set) when the database cannot be read.
DB_LOAD=""
DB_LOAD_TEXT=""
DB_LOAD_SIZING=""
db_load_state() {
  local conninfo="$1" shown="$2" names count tables has_record row
  local n_customers scale days complete started rows
  # The 33 tables, as the loader's schema (of this kit) creates them.
  names=$(sed -n 's/^CREATE TABLE \([a-z_]*\) (.*/\1/p' "${DB_ACCESS_SCHEMA}" | paste -sd, -)
  count=$(tr ',' '\n' <<<"${names}" | wc -l)
  DB_LOAD="" DB_LOAD_TEXT="" DB_LOAD_SIZING=""
  row=$(psql "${conninfo}" -XAtqw -F ' ' -v ON_ERROR_STOP=1 -c \
    "select count(*), to_regclass('brokerbench_load_info') is not null from pg_class
     where relnamespace = current_schema()::regnamespace and relkind = 'r'
       and relname = any('{${names}}')" 2>&1) || {
    DB_PROBLEM="cannot read what the database ('${shown}') holds: ${row}"
    return 1
  }
  read -r tables has_record <<<"${row}"
  if [[ "${has_record}" != t ]]; then
    if ((tables == 0)); then
      DB_LOAD=none
    else
      DB_LOAD=partial
      DB_LOAD_TEXT="${tables} of the ${count} brokerbench tables and no load record (brokerbench_load_info): a load that was interrupted, or tables made by hand"
    fi
    return 0
  fi
  row=$(psql "${conninfo}" -XAtqw -F ' ' -v ON_ERROR_STOP=1 -c \
    "select customers, scale_factor, initial_trade_days, complete,
            to_char(started, 'YYYY-MM-DD_HH24:MI:SS_TZ'), count(*) over ()
     from brokerbench_load_info limit 1" 2>&1) || {
    DB_PROBLEM="cannot read the load record (brokerbench_load_info) of the database ('${shown}'): ${row}"
    return 1
  }
  read -r n_customers scale days complete started rows <<<"${row}"
  if [[ -z "${row}" || "${rows}" != 1 ]]; then
    DB_LOAD=partial
    DB_LOAD_TEXT="a load record (brokerbench_load_info) of ${rows:-0} rows, not one, beside ${tables} of the ${count} tables"
    return 0
  fi
  DB_LOAD_SIZING="--customers ${n_customers} --scale-factor ${scale} --initial-trade-days ${days}"
  local what="the load of ${n_customers} customers, scale factor ${scale}, ${days} initial trade days, started ${started//_/ }"
  if [[ "${complete}" != t ]]; then
    DB_LOAD=partial
    DB_LOAD_TEXT="${what}, never finished (brokerbench_load_info.complete is false; ${tables} of the ${count} tables are there)"
  elif ((tables != count)); then
    DB_LOAD=partial
    DB_LOAD_TEXT="${what}, is marked complete, but only ${tables} of its ${count} tables are there"
  else
    DB_LOAD="${n_customers} ${scale} ${days} t"
  fi
}
