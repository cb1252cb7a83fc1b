#include "common/db/conninfo.h"

#include <initializer_list>
#include <string>

#include <gtest/gtest.h>

namespace bb::db {
namespace {

// Every form libpq accepts for a password (issue 16): each must come out with no trace of it.
// A redacted or rebuilt string lists its options in libpq's order (PQconndefaults), not the
// order they were given in.
struct Form {
  const char* conninfo;
  const char* secret;
  const char* redacted;
};

class SecretForms : public ::testing::TestWithParam<Form> {};

TEST_P(SecretForms, RedactionHidesThePasswordAndKeepsTheRest) {
  const std::string shown = RedactConninfo(GetParam().conninfo);
  EXPECT_EQ(shown.find(GetParam().secret), std::string::npos) << shown;
  EXPECT_EQ(shown, GetParam().redacted);
}

TEST_P(SecretForms, SplittingTakesThePasswordOut) {
  auto split = SplitPassword(GetParam().conninfo);
  ASSERT_TRUE(split.ok()) << split.status().message();
  ASSERT_TRUE(split->password.has_value());
  EXPECT_EQ(*split->password, GetParam().secret);
  EXPECT_EQ(split->conninfo.find(GetParam().secret), std::string::npos) << split->conninfo;
  // What is left holds no password at all (nothing for redaction to hide) and all the rest.
  EXPECT_EQ(RedactConninfo(split->conninfo), split->conninfo);
  std::string rest = GetParam().redacted;  // the redacted string without its password=***
  const size_t at = rest.find("password=***");
  ASSERT_NE(at, std::string::npos);
  rest.erase(at == 0 ? 0 : at - 1, 13);
  EXPECT_EQ(split->conninfo, rest);
}

INSTANTIATE_TEST_SUITE_P(
    Conninfo, SecretForms,
    ::testing::Values(
        Form{"host=db1 dbname=bb password=secretA", "secretA", "password=*** dbname=bb host=db1"},
        Form{"host=db1 password = secretB dbname=bb", "secretB", "password=*** dbname=bb host=db1"},
        Form{"password='se cr\\'etQ' user=me", "se cr'etQ", "user=me password=***"},
        Form{"postgresql://u:secretC@/db", "secretC", "user=u password=*** dbname=db"},
        Form{"postgresql://u:s%40cretD@db1:5433/bb?application_name=x", "s@cretD",
             "user=u password=*** dbname=bb host=db1 port=5433 application_name=x"}));

TEST(RedactConninfo, AStringWithoutASecretComesBackAsGiven) {
  EXPECT_EQ(RedactConninfo("host=/tmp/x  port=5433 dbname=bb"), "host=/tmp/x  port=5433 dbname=bb");
  EXPECT_EQ(RedactConninfo("postgresql://u@db1/bb"), "postgresql://u@db1/bb");
  EXPECT_EQ(RedactConninfo(""), "");
}

TEST(RedactConninfo, TheSslKeyPasswordIsASecretToo) {
  EXPECT_EQ(RedactConninfo("host=db1 sslpassword=keypass"), "host=db1 sslpassword=***");
}

// TLS (issue 30): the results must say how the kit connected; only the passwords are secret.
TEST(RedactConninfo, TheSslSettingsStayAndOnlyThePasswordsGo) {
  const std::string shown = RedactConninfo(
      "host=db1 password=pw sslmode=verify-full sslrootcert=/ca.pem sslcert=/me.crt "
      "sslkey=/me.key sslcrl=/crl.pem sslpassword=kp");
  for (const char* kept :
       {"sslmode=verify-full", "sslrootcert=/ca.pem", "sslcert=/me.crt", "sslkey=/me.key",
        "sslcrl=/crl.pem", "password=***", "sslpassword=***"}) {
    EXPECT_NE(shown.find(kept), std::string::npos) << kept << " in " << shown;
  }
  EXPECT_EQ(shown.find("=pw"), std::string::npos) << shown;
  EXPECT_EQ(shown.find("kp"), std::string::npos) << shown;
}

TEST(RedactConninfo, AStringLibpqCannotParseShowsNoneOfItsText) {
  for (const char* bad : {"host=db1 password='unterminated", "password secretE", "nonsense=x"}) {
    const std::string shown = RedactConninfo(bad);
    EXPECT_EQ(shown, "(a connection string that libpq cannot parse)") << bad;
  }
}

TEST(SplitPassword, ValuesThatNeedQuotesAreQuoted) {
  auto split = SplitPassword("host='/tmp/a b' dbname=it\\'s password=p");
  ASSERT_TRUE(split.ok()) << split.status().message();
  EXPECT_EQ(split->conninfo, "dbname='it\\'s' host='/tmp/a b'");
}

TEST(SplitPassword, TheSslSettingsStay) {
  auto split = SplitPassword(
      "host=db1 sslmode=verify-full sslrootcert=/ca.pem password=pw sslpassword=kp sslkey=/k");
  ASSERT_TRUE(split.ok()) << split.status().message();
  for (const char* kept :
       {"sslmode=verify-full", "sslrootcert=/ca.pem", "sslpassword=kp", "sslkey=/k", "host=db1"}) {
    EXPECT_NE(split->conninfo.find(kept), std::string::npos) << kept << " in " << split->conninfo;
  }
  EXPECT_EQ(split->conninfo.find("password=pw"), std::string::npos) << split->conninfo;
}

TEST(SplitPassword, AStringWithoutAPasswordIsLeftAsItIs) {
  auto split = SplitPassword("host=db1  passfile=/mine");
  ASSERT_TRUE(split.ok()) << split.status().message();
  EXPECT_FALSE(split->password.has_value());
  EXPECT_EQ(split->conninfo, "host=db1  passfile=/mine");
}

TEST(SplitPassword, AStringLibpqCannotParseIsAnErrorWithLibpqsReason) {
  auto split = SplitPassword("host=db1 bogus=1");
  ASSERT_FALSE(split.ok());
  EXPECT_EQ(split.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(split.status().message().find("not one libpq can parse"), std::string::npos);
  EXPECT_NE(split.status().message().find("bogus"), std::string::npos) << split.status().message();
}

TEST(SplitPassword, LibpqsReasonForRefusingAUriQuotesNoneOfIt) {
  auto split = SplitPassword("postgresql://u:secr%zzetF@/db");
  ASSERT_FALSE(split.ok());
  EXPECT_NE(split.status().message().find("percent-encoded"), std::string::npos)
      << split.status().message();
  EXPECT_EQ(split.status().message().find("etF"), std::string::npos) << split.status().message();
}

// Whether every one of PAIRS ("keyword=value") is in CONNINFO, a message naming those that are not.
::testing::AssertionResult Holds(const std::string& conninfo,
                                 std::initializer_list<const char*> pairs) {
  std::string missing;
  for (const char* pair : pairs) {
    if ((" " + conninfo + " ").find(std::string(" ") + pair + " ") == std::string::npos) {
      missing += std::string(missing.empty() ? "" : ", ") + pair;
    }
  }
  if (missing.empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << conninfo << " lacks " << missing;
}

TEST(WithAbsoluteFiles, RelativeFilesAreTakenFromTheDirectory) {
  auto out = WithAbsoluteFiles(
      "host=db1 dbname=bb sslmode=verify-full sslrootcert=ca.pem sslcert=tls/me.crt "
      "sslkey=./me.key sslcrl=crl.pem sslcrldir=crls passfile=pgpass password=pw",
      "/home/u");
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(Holds(
      *out, {"host=db1", "dbname=bb", "sslmode=verify-full", "sslrootcert=/home/u/ca.pem",
             "sslcert=/home/u/tls/me.crt", "sslkey=/home/u/./me.key", "sslcrl=/home/u/crl.pem",
             "sslcrldir=/home/u/crls", "passfile=/home/u/pgpass", "password=pw"}));
}

TEST(WithAbsoluteFiles, ADirectoryEndingInASlashOrWithASpaceWorks) {
  auto out = WithAbsoluteFiles("sslrootcert=ca.pem", "/a b/");
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(*out, "sslrootcert='/a b/ca.pem'");
}

TEST(WithAbsoluteFiles, AUriComesBackAsPairs) {
  auto out = WithAbsoluteFiles("postgresql://u@db1/bb?sslmode=require&sslrootcert=ca.pem", "/w");
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(
      Holds(*out, {"user=u", "host=db1", "dbname=bb", "sslmode=require", "sslrootcert=/w/ca.pem"}));
}

TEST(WithAbsoluteFiles, AbsoluteFilesTheWordSystemAndOtherKeysStayAsGiven) {
  for (const char* same : {"host=db1  sslrootcert=/etc/ca.pem passfile=/p sslmode=verify-full",
                           "host=db1 sslrootcert=system", "host=relative/dir dbname=x",
                           "postgresql://u@db1/bb?sslmode=require", ""}) {
    auto out = WithAbsoluteFiles(same, "/w");
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_EQ(*out, same);
  }
}

TEST(WithAbsoluteFiles, AStringLibpqCannotParseIsAnError) {
  auto out = WithAbsoluteFiles("host=db1 sslrootcert='ca.pem", "/w");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(out.status().message().find("not one libpq can parse"), std::string::npos);
}

}  // namespace
}  // namespace bb::db
