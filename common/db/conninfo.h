// Connection strings that may hold secrets. Parsed with libpq's own parser (PQconninfoParse),
// so every form libpq accepts is understood the way libpq understands it: key=value with or
// without spaces around '=', quoted values with escapes, and postgresql:// URIs with a
// user:password@ part. A string is shown or stored only through RedactConninfo; a password
// travels to a program in the environment or a password file (SplitPassword), never in its argv.
//
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/util/status.h"

namespace bb::db {

// CONNINFO as it may be shown or stored: the value of every option libpq marks as secret
// (dispchar '*': password, sslpassword) replaced by ***, as "keyword=value" pairs. A string
// without a secret comes back unchanged; one libpq cannot parse comes back as a note saying
// so, with none of its text (libpq's reason may quote any part of it).
std::string RedactConninfo(std::string_view conninfo);

// Ok when libpq can parse CONNINFO; otherwise InvalidArgument with libpq's reason (for a URI
// without the parts of it that libpq quotes, which may hold its password).
Status CheckConninfo(std::string_view conninfo);

struct ConninfoWithoutPassword {
  std::string conninfo;                 // to connect with, given the password some other way
  std::optional<std::string> password;  // absent when there was none
};

// Takes the password out of CONNINFO: the rest as "keyword=value" pairs, or CONNINFO unchanged
// when it has no password. Fails (InvalidArgument) when libpq cannot parse it, with libpq's
// reason. Libpq takes a password left out of the string from PGPASSWORD, then a password file.
Result<ConninfoWithoutPassword> SplitPassword(std::string_view conninfo);

// CONNINFO with the files it names (passfile, sslrootcert, sslcert, sslkey, sslcrl, sslcrldir)
// as absolute paths: a relative one is taken from DIRECTORY, as libpq takes it from the
// working directory, so that the string names the same files for a program that runs in
// another directory (the Brokerage House and the system monitor run in their own; with a
// relative sslrootcert lost, sslmode=require connects without verifying the server).
// sslrootcert=system (libpq 16: the system's CAs) is a word, not a file, and stays. A string
// that names no relative file comes back unchanged; others as "keyword=value" pairs, the
// password included. Fails (InvalidArgument) as SplitPassword does.
Result<std::string> WithAbsoluteFiles(std::string_view conninfo, std::string_view directory);

}  // namespace bb::db
