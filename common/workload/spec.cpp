#include "common/workload/spec.h"

namespace bb::workload::spec {

double NominalTrtps(long long customers, long long scale_factor) {
  return static_cast<double>(customers) / static_cast<double>(scale_factor);
}

double CustomerTransactionsPerTradeResult() {
  const double orders = DeckCards(TT::kTradeOrder);
  const double results = orders * (1.0 - 1.0 / kRollbackOneIn);
  return kDeckSize / results;
}

double AutoPacingSeconds(long long users, long long customers, long long scale_factor) {
  const double customer_tps =
      NominalTrtps(customers, scale_factor) * CustomerTransactionsPerTradeResult();
  return static_cast<double>(users) / customer_tps;
}

}  // namespace bb::workload::spec
