// Properties of every input: partitions, determinism per seed, the protocol's encoder, and no
// allocation beyond what an input holds (this file replaces operator new for the binary).
#include "common/workload/inputs_test_world.h"

// Heap allocations of this test binary, counted so that a test can check that generating an
// input allocates only the strings and vectors the input holds. Replacing the global operator
// new is the only way to observe that, hence a counter at namespace scope. The operators stay
// out of line so GCC does not pair an inlined free() with a new expression
// (-Wmismatched-new-delete).
namespace {
std::atomic<int64_t> heap_allocations{0};
}  // namespace

[[gnu::noinline]] void* operator new(std::size_t size) {
  heap_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
[[gnu::noinline]] void operator delete(void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace bb::workload::inputs_test {

// ---------------------------------------------------------------------------------------------
// Partitions, determinism, the wire, allocations.

TEST(InputGenerator, PartitionDrawsHalfFromItsCustomersAndHalfFromAll) {
  // 20 LUs, the CE owns LUs 5..9: 50 % partition + 50 % × 5/20 from the whole range = 62.5 %
  // of customer-initiated inputs name a partition customer; Data-Maintenance uses the whole
  // range (25 %).
  const Sizing sizing{.customers = 20000};
  auto gen = InputGenerator::ForPartition(sizing, 13, 5001, 5000);
  ASSERT_TRUE(gen.ok()) << gen.status().message();
  EXPECT_TRUE(gen->selector().partitioned());
  const auto in_partition = [](int64_t c_id) {
    const int64_t lu = LoadUnitOfCustomer(c_id);
    return lu >= 5 && lu < 10;
  };
  constexpr int64_t kDraws = 200'000;
  int64_t inside = 0;
  int64_t dm_inside = 0;
  std::map<int64_t, int64_t> per_lu;
  for (int64_t i = 0; i < kDraws; ++i) {
    const int64_t owner = AccountOwner(gen.value().TradeStatus().acct_id);
    inside += in_partition(owner) ? 1 : 0;
    ++per_lu[LoadUnitOfCustomer(owner)];
    const int64_t dm_owner =
        AccountOwner(gen.value().DataMaintenance(pb::MaintenanceTable::kAccountPermission).acct_id);
    dm_inside += in_partition(dm_owner) ? 1 : 0;
  }
  ExpectPercentIn("partition share", inside, kDraws, 61.5, 63.5);
  ExpectPercentIn("DM partition share", dm_inside, kDraws, 24, 26);
  ASSERT_EQ(per_lu.size(), 20u);
  for (const auto& [lu, n] : per_lu) {
    const double expected = lu >= 5 && lu < 10 ? 12.5 : 2.5;  // percent per LU
    ExpectPercentIn("LU " + std::to_string(lu), n, kDraws, expected * 0.93, expected * 1.07);
  }
}

TEST(InputGenerator, PartitionErrorsNameTheOption) {
  const Sizing sizing{.customers = 20000};
  auto bad_start = InputGenerator::ForPartition(sizing, 1, 1500, 5000);
  ASSERT_FALSE(bad_start.ok());
  EXPECT_NE(bad_start.status().message().find("--start-customer: '1500'"), std::string::npos)
      << bad_start.status().message();
  auto too_many = InputGenerator::ForPartition(sizing, 1, 15001, 10000);
  ASSERT_FALSE(too_many.ok());
  EXPECT_NE(too_many.status().message().find("--partition-customers"), std::string::npos)
      << too_many.status().message();
}

template <typename F>
void ExpectSameSequences(F generate) {
  InputGenerator a(kSizing, 1234);
  InputGenerator b(kSizing, 1234);
  InputGenerator c(kSizing, 1235);
  int differ = 0;
  for (int i = 0; i < 500; ++i) {
    const auto x = generate(a);
    ASSERT_EQ(x, generate(b));
    differ += x == generate(c) ? 0 : 1;
  }
  EXPECT_GT(differ, 250);
}

TEST(InputGenerator, DeterministicPerSeed) {
  ExpectSameSequences([](InputGenerator& g) { return g.BrokerVolume(); });
  ExpectSameSequences([](InputGenerator& g) { return g.CustomerPosition(); });
  ExpectSameSequences([](InputGenerator& g) { return g.MarketWatch(); });
  ExpectSameSequences([](InputGenerator& g) { return g.SecurityDetail(); });
  ExpectSameSequences([](InputGenerator& g) { return g.TradeLookup(); });
  ExpectSameSequences([](InputGenerator& g) { return g.TradeOrder(); });
  ExpectSameSequences([](InputGenerator& g) { return g.TradeStatus(); });
  ExpectSameSequences([](InputGenerator& g) { return g.TradeUpdate(); });
  ExpectSameSequences(
      [](InputGenerator& g) { return g.DataMaintenance(pb::MaintenanceTable::kAddress); });
  // A copy continues the same stream.
  InputGenerator a(kSizing, 5);
  a.TradeOrder();
  InputGenerator b = a;
  EXPECT_EQ(a.TradeOrder(), b.TradeOrder());
}

template <typename M>
void ExpectEncodes(const M& m) {
  std::vector<uint8_t> buffer;
  pb::Writer w(buffer);
  const Status s = pb::Encode(m, w);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_GT(buffer.size(), 0u);
}

TEST(InputGenerator, InputsPassTheProtocolsEncoder) {
  // The default world and a large one (copied company names " #k", symbols "-k").
  for (const Sizing& sizing : {kSizing, Sizing{.customers = 300'000}}) {
    InputGenerator gen(sizing, 14);
    for (int i = 0; i < 5000; ++i) {
      ExpectEncodes(gen.BrokerVolume());
      ExpectEncodes(gen.CustomerPosition());
      ExpectEncodes(gen.MarketWatch());
      ExpectEncodes(gen.SecurityDetail());
      ExpectEncodes(gen.TradeLookup());
      ExpectEncodes(gen.TradeOrder());
      ExpectEncodes(gen.TradeStatus());
      ExpectEncodes(gen.TradeUpdate());
      ExpectEncodes(gen.DataMaintenance(static_cast<pb::MaintenanceTable>(i % 12)));
      if (HasFatalFailure()) return;
    }
    ExpectEncodes(gen.TradeCleanup());
  }
}

// Heap blocks an input owns: each string beyond the small-string buffer, each vector buffer.
int64_t HeapBlocks(const std::string& s) { return s.capacity() > std::string().capacity(); }
template <typename T>
int64_t HeapBlocks(const std::vector<T>& v) {
  int64_t n = v.capacity() > 0 ? 1 : 0;
  if constexpr (std::is_same_v<T, std::string>) {
    for (const std::string& s : v) n += HeapBlocks(s);
  }
  return n;
}
int64_t HeapBlocks(const pb::BrokerVolumeInput& m) {
  return HeapBlocks(m.broker_list) + HeapBlocks(m.sector_name);
}
int64_t HeapBlocks(const pb::CustomerPositionInput& m) { return HeapBlocks(m.tax_id); }
int64_t HeapBlocks(const pb::MarketWatchInput& m) { return HeapBlocks(m.industry_name); }
int64_t HeapBlocks(const pb::SecurityDetailInput& m) { return HeapBlocks(m.symbol); }
int64_t HeapBlocks(const pb::TradeLookupInput& m) {
  return HeapBlocks(m.trade_ids) + HeapBlocks(m.symbol);
}
int64_t HeapBlocks(const pb::TradeOrderInput& m) {
  return HeapBlocks(m.exec_f_name) + HeapBlocks(m.exec_l_name) + HeapBlocks(m.exec_tax_id) +
         HeapBlocks(m.symbol) + HeapBlocks(m.co_name) + HeapBlocks(m.issue) +
         HeapBlocks(m.trade_type_id) + HeapBlocks(m.st_pending_id) + HeapBlocks(m.st_submitted_id);
}
int64_t HeapBlocks(const pb::TradeStatusInput&) { return 0; }
int64_t HeapBlocks(const pb::TradeUpdateInput& m) {
  return HeapBlocks(m.trade_ids) + HeapBlocks(m.symbol);
}
int64_t HeapBlocks(const pb::DataMaintenanceInput& m) {
  return HeapBlocks(m.symbol) + HeapBlocks(m.tx_id);
}

// Generates n inputs; expects no heap allocation beyond the blocks the inputs own, and prints
// the time per input (information only).
template <typename F>
void ExpectOnlyOwnAllocations(const char* name, F generate, const Sizing& sizing) {
  constexpr int kWarmUp = 1000;  // builds the lazily made word lists and market base list
  constexpr int kInputs = 50'000;
  InputGenerator gen(sizing, 15);
  for (int i = 0; i < kWarmUp; ++i) generate(gen);
  int64_t extra = 0;
  int64_t total_ns = 0;
  for (int i = 0; i < kInputs; ++i) {
    const int64_t before = heap_allocations.load(std::memory_order_relaxed);
    const auto t0 = std::chrono::steady_clock::now();
    const auto in = generate(gen);
    const auto t1 = std::chrono::steady_clock::now();
    const int64_t allocations = heap_allocations.load(std::memory_order_relaxed) - before;
    total_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count();
    extra += std::max<int64_t>(0, allocations - HeapBlocks(in));
  }
  EXPECT_EQ(extra, 0) << name << ": allocations beyond the input's own strings and vectors";
  std::cout << "[ timing ] " << name << " (" << sizing.customers
            << " customers): " << static_cast<double>(total_ns) / kInputs / 1000.0
            << " us per input\n";
}

TEST(InputGenerator, AllocatesOnlyWhatTheInputHolds) {
  for (const Sizing& sizing : {kSizing, Sizing{.customers = 300'000}}) {
    ExpectOnlyOwnAllocations(
        "BrokerVolume", [](InputGenerator& g) { return g.BrokerVolume(); }, sizing);
    ExpectOnlyOwnAllocations(
        "CustomerPosition", [](InputGenerator& g) { return g.CustomerPosition(); }, sizing);
    ExpectOnlyOwnAllocations(
        "MarketWatch", [](InputGenerator& g) { return g.MarketWatch(); }, sizing);
    ExpectOnlyOwnAllocations(
        "SecurityDetail", [](InputGenerator& g) { return g.SecurityDetail(); }, sizing);
    ExpectOnlyOwnAllocations(
        "TradeLookup", [](InputGenerator& g) { return g.TradeLookup(); }, sizing);
    ExpectOnlyOwnAllocations(
        "TradeOrder", [](InputGenerator& g) { return g.TradeOrder(); }, sizing);
    ExpectOnlyOwnAllocations(
        "TradeStatus", [](InputGenerator& g) { return g.TradeStatus(); }, sizing);
    ExpectOnlyOwnAllocations(
        "TradeUpdate", [](InputGenerator& g) { return g.TradeUpdate(); }, sizing);
    ExpectOnlyOwnAllocations(
        "DataMaintenance",
        [](InputGenerator& g) { return g.DataMaintenance(pb::MaintenanceTable::kTaxrate); },
        sizing);
  }
}

}  // namespace bb::workload::inputs_test
