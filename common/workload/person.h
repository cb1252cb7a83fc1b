// Person attributes derived from a person id, by EGen's rules: a customer's C_ID, or a
// pseudo-person id (extra account executors, the names of brokers and of CEOs).
// Every attribute is a per-key draw (random.h) with its own base seed, so the loader and
// the customer emulator compute the same name, tax id, birth date, phones and e-mails.
//
// Thread-safety: pure functions over immutable word lists.
#pragma once

#include <cstdint>
#include <string>

#include "common/workload/calendar.h"

namespace bb::workload {

// Pseudo-person ids for extra account executors are drawn from 1 .. 4024·2^20.
inline constexpr int64_t kMaxPseudoPersonId = int64_t{4024} << 20;
// The person whose name a broker or a company's CEO carries.
inline int64_t BrokerPersonId(int64_t b_id) { return b_id + 1'000'000; }
inline int64_t CeoPersonId(int64_t co_id) { return co_id * 1000; }

inline constexpr int kTaxIdLength = 14;
inline constexpr int kPhonesPerCustomer = 3;
inline constexpr int kEmailsPerCustomer = 2;

enum class Gender { kMale, kFemale };

Gender GenderOf(int64_t person_id);  // 49 % male
inline char GenderCode(Gender g) { return g == Gender::kMale ? 'M' : 'F'; }
// From the list of the person's gender.
const std::string& FirstName(int64_t person_id);
char MiddleInitial(int64_t person_id);  // 'A'..'Z'
const std::string& LastName(int64_t person_id);
// "<First> <Last>" (T_EXEC_NAME, CO_CEO) and "<First> <M>. <Last>" (B_NAME).
std::string FullName(int64_t person_id);
std::string FullNameWithInitial(int64_t person_id);
// 14 characters: 3 digits, 2 letters, 4 digits, 2 letters, 3 digits (upper case).
std::string TaxId(int64_t person_id);
// Age bracket relative to 2005-01-03 with EGen's weights, day uniform inside the bracket.
Date DateOfBirth(int64_t person_id);

struct Phone {
  std::string country;    // "011"
  std::string area;       // 3 digits
  std::string local;      // 7 digits
  std::string extension;  // 3 digits or empty
};
// Phone n = 0, 1, 2 (extensions with probability 25 %, 15 %, 5 %).
Phone PhoneOf(int64_t person_id, int n);
// E-mail n = 0, 1: first initial + last name + domain; the two use different domains.
std::string Email(int64_t person_id, int n);

}  // namespace bb::workload
