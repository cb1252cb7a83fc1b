#include "common/db/conninfo.h"

#include <memory>

#include <fmt/format.h>
#include <libpq-fe.h>

namespace bb::db {

namespace {

struct OptionsFree {
  void operator()(PQconninfoOption* options) const { PQconninfoFree(options); }
};
using Options = std::unique_ptr<PQconninfoOption, OptionsFree>;

// libpq's reason with the text between its double quotes left out. Its reasons for refusing
// a URI quote parts of the URI, the user:password@ part included; those for key=value pairs
// quote only a keyword or the word where a keyword should be, which the user needs to see.
std::string WithoutQuotedText(std::string_view why) {
  std::string out;
  bool quoted = false;
  for (char c : why) {
    if (c == '"') {
      out += quoted ? "\"" : "\"...";
      quoted = !quoted;
    } else if (!quoted) {
      out += c;
    }
  }
  return out;
}

// The options libpq found in CONNINFO (only those given: PQconninfoParse adds no defaults),
// or libpq's reason for refusing it.
Result<Options> Parse(std::string_view conninfo) {
  char* error = nullptr;
  Options options(PQconninfoParse(std::string(conninfo).c_str(), &error));
  if (options == nullptr) {
    std::string why = error != nullptr ? error : "out of memory";
    PQfreemem(error);
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    if (conninfo.starts_with("postgresql://") || conninfo.starts_with("postgres://")) {
      why = WithoutQuotedText(why);
    }
    return Status::InvalidArgument(
        fmt::format("the database connection string is not one libpq can parse: {}", why));
  }
  return options;
}

bool IsSecret(const PQconninfoOption& option) {
  return option.dispchar != nullptr && option.dispchar[0] == '*';
}

// VALUE as a conninfo value: bare when it can be, else single-quoted with ' and \ escaped.
void AppendValue(std::string& out, std::string_view value) {
  bool bare = !value.empty() && value.find_first_of(" \t\n\r\f\v'\\") == std::string_view::npos;
  if (bare) {
    out += value;
    return;
  }
  out += '\'';
  for (char c : value) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  out += '\'';
}

void AppendOption(std::string& out, std::string_view keyword, std::string_view value) {
  if (!out.empty()) out += ' ';
  out += keyword;
  out += '=';
  AppendValue(out, value);
}

// Whether OPTION names a file by a path relative to the working directory.
bool IsRelativeFile(const PQconninfoOption& option) {
  static constexpr std::string_view kFiles[] = {"passfile", "sslrootcert", "sslcert",
                                                "sslkey",   "sslcrl",      "sslcrldir"};
  const std::string_view keyword = option.keyword;
  const std::string_view value = option.val;
  bool file = false;
  for (std::string_view f : kFiles) file = file || keyword == f;
  if (!file || value.empty() || value.front() == '/') return false;
  return !(keyword == "sslrootcert" && value == "system");
}

}  // namespace

Status CheckConninfo(std::string_view conninfo) {
  auto options = Parse(conninfo);
  return options.ok() ? Status::Ok() : options.status();
}

std::string RedactConninfo(std::string_view conninfo) {
  auto options = Parse(conninfo);
  if (!options.ok()) return "(a connection string that libpq cannot parse)";
  bool secret = false;
  std::string out;
  for (const PQconninfoOption* o = options->get(); o->keyword != nullptr; ++o) {
    if (o->val == nullptr) continue;
    secret = secret || IsSecret(*o);
    AppendOption(out, o->keyword, IsSecret(*o) ? "***" : o->val);
  }
  return secret ? out : std::string(conninfo);
}

Result<ConninfoWithoutPassword> SplitPassword(std::string_view conninfo) {
  auto options = Parse(conninfo);
  if (!options.ok()) return options.status();
  ConninfoWithoutPassword split;
  for (const PQconninfoOption* o = options->get(); o->keyword != nullptr; ++o) {
    if (o->val == nullptr) continue;
    if (std::string_view(o->keyword) == "password") {
      split.password = o->val;
    } else {
      AppendOption(split.conninfo, o->keyword, o->val);
    }
  }
  if (!split.password) split.conninfo = conninfo;
  return split;
}

Result<std::string> WithAbsoluteFiles(std::string_view conninfo, std::string_view directory) {
  auto options = Parse(conninfo);
  if (!options.ok()) return options.status();
  bool changed = false;
  std::string out;
  for (const PQconninfoOption* o = options->get(); o->keyword != nullptr; ++o) {
    if (o->val == nullptr) continue;
    if (IsRelativeFile(*o)) {
      changed = true;
      std::string path(directory);
      if (path.empty() || path.back() != '/') path += '/';
      AppendOption(out, o->keyword, path + o->val);
    } else {
      AppendOption(out, o->keyword, o->val);
    }
  }
  return changed ? out : std::string(conninfo);
}

}  // namespace bb::db
