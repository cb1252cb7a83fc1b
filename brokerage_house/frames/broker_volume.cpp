// Broker-Volume (clause 3.3.1): the volume of pending limit orders
// (TRADE_REQUEST) per broker of a list, for the securities of one sector. Read-only, one frame,
// READ COMMITTED (L1, clause 7.4.1.3). Server-side: sql/broker_volume.sql.
#include <string>
#include <string_view>
#include <vector>

#include "brokerage_house/frame_runner.h"
#include "brokerage_house/frames/statements.h"

namespace bb::bh {
namespace {

constexpr std::string_view kFrame1 = "bv_f1";

// $1: the broker names as a text[] literal, $2: the sector name. One row per broker of the list
// that has pending requests in the sector; a broker without any is not listed (spec: list_len
// counts the rows of the grouped query). The name tie-break only makes the order total.
constexpr db::PreparedStatement kStatements[] = {
    {kFrame1, R"sql(
SELECT b_name, sum(tr_qty * tr_bid_price) AS volume
FROM trade_request
JOIN broker ON b_id = tr_b_id
JOIN security ON s_symb = tr_s_symb
JOIN company ON co_id = s_co_id
JOIN industry ON in_id = co_in_id
JOIN sector ON sc_id = in_sc_id
WHERE b_name = ANY ($1::varchar[]) AND sc_name = $2
GROUP BY b_name
ORDER BY volume DESC, b_name)sql"},
};

// A PostgreSQL array literal of the names up to the first empty one (the spec's list ends
// there), each quoted so that spaces, commas and braces in a name are data.
std::string BrokerArrayLiteral(const std::vector<std::string>& names) {
  std::string literal = "{";
  for (const std::string& name : names) {
    if (name.empty()) break;
    if (literal.size() > 1) literal += ',';
    literal += '"';
    for (char c : name) {
      if (c == '"' || c == '\\') literal += '\\';
      literal += c;
    }
    literal += '"';
  }
  literal += '}';
  return literal;
}

// The server-side frame: one call of sql/broker_volume.sql's function. Its columns:
enum CallColumn : int {
  kStatus,
  kBrokerNames,  // then the volumes, parallel to it
};
constexpr std::string_view kCall = "bv_call";
constexpr db::PreparedStatement kServerStatements[] = {
    {kCall, "SELECT * FROM bb_broker_volume($1, $2)"}};

}  // namespace

std::span<const db::PreparedStatement> frames::BrokerVolumeStatements(FrameMode mode) {
  return ForMode(mode, kServerStatements, kStatements);
}

bool frames::Prepare(const protocol::BrokerVolumeInput& in, ServerCall& call,
                     protocol::BrokerVolumeOutput&) {
  call.isolation = db::Isolation::kReadCommitted;
  call.finish = db::Finish::kCommit;
  call.statement = kCall;
  call.params.assign({BrokerArrayLiteral(in.broker_list), in.sector_name});
  return true;
}

protocol::BrokerVolumeOutput frames::Read(const protocol::BrokerVolumeInput&,
                                          const db::TxnOutcome& outcome, const db::QueryResult& row,
                                          std::vector<protocol::MarketTradeRequest>&) {
  protocol::BrokerVolumeOutput out;
  if (outcome.end == db::TxnEnd::kCommitted && row.size() == 1) {
    auto [names, volumes] = frames::Lists<2>(row, kBrokerNames);
    while (names.Next()) {
      volumes.Next();
      out.brokers.push_back({std::string(names.value()), volumes.Cents()});
    }
  }
  out.status = MakeReplyStatus(outcome, frames::CallStatus(outcome, row));
  return out;
}

protocol::BrokerVolumeOutput FrameRunner::Run(const protocol::BrokerVolumeInput& in) {
  if (on_server()) {
    std::vector<protocol::MarketTradeRequest> none;
    return frames::RunServerCall(session_, options_.max_retries, in, none);
  }
  protocol::BrokerVolumeOutput out;
  int32_t status = 0;
  const std::string brokers = BrokerArrayLiteral(in.broker_list);
  const db::TxnOutcome outcome =
      session_.Run(db::Isolation::kReadCommitted, options_.max_retries, [&](db::Transaction& tx) {
        out.brokers.clear();
        status = 0;
        const db::QueryResult rows = tx.Exec(kFrame1, {brokers, in.sector_name});
        // Harness check (3.3.1): list_len < 0 or > max_broker_list_len (40) is invalid.
        if (rows.size() > protocol::kMaxBrokerList) {
          status = -111;
          return db::Finish::kRollback;
        }
        out.brokers.reserve(rows.size());
        for (std::size_t i = 0; i < rows.size(); ++i) {
          out.brokers.push_back({std::string(rows.Text(i, 0)), rows.Cents(i, 1)});
        }
        return db::Finish::kCommit;
      });
  out.status = MakeReplyStatus(outcome, status);
  return out;
}

}  // namespace bb::bh
