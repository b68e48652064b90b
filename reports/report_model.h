#pragma once
// What `fabscope report` renders: the results fabscope wrote (a snapshot, a
// validation, perf reports, a congestion report, a mesh or incast run), read back into the model
// and joined into one picture: the verdict, the findings with their evidence, the fabric by tier
// with the links the findings name, the pair matrices, and where it all came
// from. Every renderer (HTML, Markdown, JUnit, CSV) reads this, never JSON.

#include <array>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "formats/collective_bench.h"
#include "model/snapshot.h"
#include "model/tiers.h"
#include "pairtest/results/report.h"
#include "reports/cables_doc.h"
#include "reports/congestion_doc.h"
#include "reports/incast_doc.h"
#include "reports/mesh_doc.h"
#include "reports/report_finding.h"
#include "reports/routing_doc.h"
#include "reports/validation_report.h"

namespace fabscope {

/// A validation document (docs/validation.schema.json) read back.
struct ValidationDoc {
    ValidationMeta meta;
    std::string result;  ///< "pass", "fail", "interrupted"
    std::vector<CheckMade> checks;
    /// The cables its plan (or baseline) expects; empty without either, or
    /// in a document written before they were recorded.
    std::vector<ExpectedCable> expected;
    std::vector<ReportFinding> findings;
    size_t nodes = 0;
    size_t links = 0;
    std::string fingerprint;  ///< of the fabric it checked (model/fingerprint); "" in older files
};

/// One pairwise test as a check: a row of the JUnit perf suite.
struct PairCheck {
    std::string from;  ///< the host that ran the test
    std::string to;    ///< its peer
    std::string test;  ///< "write_bw"
    bool ok = false;
    bool degraded = false;
    double value = 0;  ///< Gb/s (bandwidth) or µs median (latency)
    std::string unit;
    std::string message;  ///< why it failed or fell short
    nlohmann::json evidence = nlohmann::json::object();
    bool mesh = false;  ///< a flow of a mesh run (its suspects are the checks)
};

/// One test's results, host by peer: the heat map.
struct PairMatrix {
    std::string test;
    std::string unit;
    bool higher_is_better = true;
    std::vector<std::string> rows;  ///< hosts that ran the test
    std::vector<std::string> cols;  ///< peers
    /// rows x cols, index into the report's pair checks, or -1 when not measured.
    std::vector<long> cells;
    double best = 0;
    double worst = 0;
};

struct ReportMeta {
    std::string tool_version;
    std::string command_line;
    std::string generated;            ///< ISO 8601
    std::vector<std::string> inputs;  ///< the files read, with what each was
    /// --expect-busbw: the bus bandwidth (GB/s) a collective benchmark must
    /// reach at its largest message; nothing judges it without.
    std::optional<double> expect_busbw_gbps;
    /// --thresholds' routing.imbalance: the uplink spread over which the
    /// routing table marks a leaf (without it, the validation's limit as its
    /// route_imbalance findings carry it, else the thresholds' default).
    std::optional<double> imbalance_limit;
};

struct ReportModel {
    ReportMeta meta;
    std::optional<Snapshot> snapshot;
    Tiers tiers;  ///< of the snapshot's fabric
    std::optional<ValidationDoc> validation;
    std::vector<perf::PerfReport> perf;
    std::optional<CongestionDoc> congestion;
    std::optional<MeshRunDoc> mesh;
    std::optional<IncastDoc> incast;
    /// What the snapshot's forwarding tables do: none without them.
    std::optional<RoutingDoc> routing;
    std::vector<CollectiveBench> collectives;  ///< nccl-tests outputs
    /// Health documents' ports and modules, host by host (the cables section).
    std::vector<HostCables> cables;
    std::vector<CheckMade> checks;        ///< what was checked
    std::vector<ReportFinding> findings;  ///< errors first
    std::vector<PairCheck> pairs;
    std::vector<PairMatrix> matrices;
    /// Per link of the snapshot's fabric: the findings naming one of its ports.
    std::vector<std::vector<size_t>> link_findings;
    bool interrupted = false;
    /// What the reader should know about the inputs: a snapshot and a
    /// validation that are not of the same fabric state.
    std::vector<std::string> warnings;

    /// "PASS", "FAIL" or "INTERRUPTED".
    std::string verdict() const;
    size_t count(Severity s) const;
    /// The worst severity of a link's findings; nothing for a healthy link.
    std::optional<Severity> link_severity(size_t link) const;
    /// "leaf02[5] -- spine01[1]": how reports name a link.
    std::string link_name(size_t link) const;
    /// "ibsim0 port 1, 24 nodes, 40 links, fabric 3f2a9c01d4e6", or what is known.
    std::string fabric_identity() const;
};

/// What a port of the snapshot runs and could run, the rates that tell a
/// link configured down (enabled) from one that trained down (active below
/// enabled): "leaf02[5]: 1X HDR; enabled 1X HDR; supported 1X,4X HDR";
/// "" without a snapshot or for a port it does not have.
std::string port_rates(const ReportModel& m, const PortLabel& l);
/// Whether the snapshot holds any port's counters (discover reads none).
bool counters_read(const ReportModel& m);

/// A non-zero error counter (or PortXmitWait) of a port of the snapshot.
struct CounterRow {
    PortRef port;
    std::string where;  ///< "leaf02[5]"
    Counter counter = Counter::SymbolErrorCounter;
    uint64_t value = 0;
};
/// The ports' non-zero error counters and PortXmitWait, by port name
/// (so a port's counters stay together); at most `max` rows.
std::vector<CounterRow> counter_rows(const ReportModel& m, size_t max = 200);

/// The runs' reports beside the fabric's: a mesh run, an incast run, and
/// the collective library's own benchmarks (nccl-tests).
struct RunDocs {
    std::optional<MeshRunDoc> mesh;
    std::optional<IncastDoc> incast;
    std::vector<CollectiveBench> collectives;
    std::vector<HostCables> cables;  ///< from health documents
};

/// Joins what was read. Without a validation document, the snapshot is
/// checked here (validate(), no plan, one counter reading), so a snapshot
/// alone still gets a verdict. Perf reports are compared as `perf run` does.
/// A congestion report's findings join the others (its ports mark the
/// snapshot's links, roots before victims). A mesh run's suspects come
/// first among findings of their severity; its flows make a pair matrix.
ReportModel build_report(std::optional<Snapshot> snapshot, std::optional<ValidationDoc> validation,
                         std::vector<perf::PerfReport> perf, ReportMeta meta,
                         std::optional<CongestionDoc> congestion = std::nullopt, RunDocs runs = {});

/// What a ticket is about: findings of a kind ("link_down"), or naming a
/// node ("leaf02", "h0001") or a port ("leaf02[5]"); or a cable, both of
/// whose ends (nodes or ports) a finding names.
struct FindingFilter {
    std::vector<std::string> selectors;             ///< --finding: any of them
    std::vector<std::array<std::string, 2>> links;  ///< --link A B: both ends
    bool empty() const { return selectors.empty() && links.empty(); }
};

/// Keeps the findings `keep` selects (any of its selectors or links); an
/// empty filter keeps all. An error (exit 2) when none is left.
Status keep_findings(ReportModel& m, const FindingFilter& keep);

/// Reads a validation document; errors name the JSON path of the bad value.
Result<ValidationDoc> validation_doc_from_json(const nlohmann::json& j);

/// Reads every file, tells a snapshot from a validation from a perf,
/// congestion, mesh run or incast report by its "format" (a mesh run report
/// by its shape) and nccl-tests' text by its header, and builds the report. At most one snapshot,
/// one validation, one congestion report, one mesh run and one incast run. Every error names the
/// file, with code 2 (kExitUsage).
Result<ReportModel> load_report(const std::vector<std::string>& paths, ReportMeta meta);

}  // namespace fabscope
