// Identifier spaces, laid out as EGen does: how customer, account, broker, company, address,
// news-item, watch-list and trade ids are numbered, so that the loader and the drivers compute
// the same ids without the database.
//
// Conventions: an "ordinal" is 1-based (customer n = 1..customers, trade ordinal 1..); an
// "index" is 0-based (company index 0..companies-1, load unit 0..LUs-1).
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>

#include "common/workload/sizing.h"

namespace bb::workload {

inline constexpr int64_t kIdentShift = 4'300'000'000;          // IDENT_T ids except NI_ID
inline constexpr int64_t kTradeIdShift = 200'000'000'000'000;  // TRADE_T ids
inline constexpr int64_t kMaxTradeId = 999'999'999'999'999;    // NUM(15)
inline constexpr int kMaxAccountsPerCustomer = 10;             // CA_ID block per customer
inline constexpr int kExchangeCount = 4;
inline constexpr int kNewsItemsPerCompany = 2;
// Every initiated load trade whose ordinal ≡ 51 (mod 101) is aborted, as in EGen, standing for
// Trade-Order's roll-backs.
inline constexpr int64_t kAbortedTradeModulus = 101;
inline constexpr int64_t kAbortedTradeResidue = 51;

// --- customers ---
inline int64_t CustomerIdFromOrdinal(int64_t n) { return kIdentShift + n; }
inline int64_t CustomerOrdinal(int64_t c_id) { return c_id - kIdentShift; }
// 0-based load unit that holds the customer.
inline int64_t LoadUnitOfCustomer(int64_t c_id) {
  return (CustomerOrdinal(c_id) - 1) / kCustomersPerLoadUnit;
}
inline int64_t FirstCustomerIdOfLoadUnit(int64_t load_unit) {
  return CustomerIdFromOrdinal(load_unit * kCustomersPerLoadUnit + 1);
}

// --- accounts: each customer owns the block (C_ID−1)·10+1 .. (C_ID−1)·10+10 ---
inline int64_t AccountId(int64_t c_id, int slot) {
  return (c_id - 1) * kMaxAccountsPerCustomer + 1 + slot;
}
inline int64_t AccountOwner(int64_t ca_id) { return (ca_id - 1) / kMaxAccountsPerCustomer + 1; }
inline int AccountSlot(int64_t ca_id) {
  return static_cast<int>((ca_id - 1) % kMaxAccountsPerCustomer);
}

// --- brokers: LU ℓ owns brokers 10ℓ+1 .. 10ℓ+10 (after the shift) ---
inline int64_t BrokerId(int64_t broker_index) { return kIdentShift + 1 + broker_index; }
inline int64_t BrokerIndex(int64_t b_id) { return b_id - kIdentShift - 1; }
inline int64_t BrokerIdOfLoadUnit(int64_t load_unit, int64_t j) {
  return BrokerId(load_unit * kBrokersPerLoadUnit + j);
}

// --- companies ---
inline int64_t CompanyId(int64_t company_index) { return kIdentShift + 1 + company_index; }
inline int64_t CompanyIndex(int64_t co_id) { return co_id - kIdentShift - 1; }

// --- addresses: exchanges, then companies, then customers ---
inline int64_t ExchangeAddressId(int exchange_index) { return kIdentShift + 1 + exchange_index; }
inline int64_t CompanyAddressId(int64_t company_index) {
  return kIdentShift + 1 + kExchangeCount + company_index;
}
inline int64_t CustomerAddressId(const Sizing& sizing, int64_t c_id) {
  return kExchangeCount + sizing.Companies() + c_id;
}

// --- news items: 1 .. 2·companies, not shifted ---
inline int64_t NewsItemId(int64_t company_index, int k) {
  return company_index * kNewsItemsPerCompany + k + 1;
}

// --- watch lists: within each LU a permutation of that LU's customer ids ---
int64_t WatchListId(int64_t c_id);
int64_t WatchListOwner(int64_t wl_id);

// --- trades (ordinals are global: LU ℓ owns ordinals ℓ·block+1 .. (ℓ+1)·block) ---
inline bool IsAbortedTradeOrdinal(int64_t ordinal) {
  return ordinal % kAbortedTradeModulus == kAbortedTradeResidue;
}
// The CE's rule for a drawn ordinal that names an aborted trade: use the next one (clause 6.4.1).
inline int64_t SkipAbortedTradeOrdinal(int64_t ordinal) {
  return IsAbortedTradeOrdinal(ordinal) ? ordinal + 1 : ordinal;
}
inline int64_t TradeIdFromOrdinal(int64_t ordinal) { return kTradeIdShift + ordinal; }
inline int64_t TradeOrdinal(int64_t t_id) { return t_id - kTradeIdShift; }

struct TradeOrdinalRange {
  int64_t first = 0;  // inclusive
  int64_t last = 0;   // inclusive
};
inline TradeOrdinalRange TradeOrdinalsOfLoadUnit(const Sizing& sizing, int64_t load_unit) {
  const int64_t block = sizing.TradeIdBlockSize();
  return {load_unit * block + 1, (load_unit + 1) * block};
}
// Highest ordinal a load trade can have (TL/TU frame 1 draw their ids up to it, clause 6.4.1).
inline int64_t MaxInitialTradeOrdinal(const Sizing& sizing) { return sizing.InitiatedTrades(); }
// Trade-Cleanup's start id: the first id after every load block.
inline int64_t TradeCleanupStartId(const Sizing& sizing) {
  return TradeIdFromOrdinal(sizing.InitiatedTrades() + 1);
}

}  // namespace bb::workload
