#include "pairtest/matrix.h"

#include <fmt/format.h>

#include <cstdio>

#include "model/thresholds.h"
#include "net/auth.h"
#include "pairtest/run_table.h"
#include "trace/flow_path.h"
#include "trace/roce_trace.h"
#include "util/duration.h"

namespace fabscope::perf {
namespace {

/// What every test shares: how long it measures, how deep and how it posts.
Result<TestSpec> common_spec(const TestMatrixRequest& o) {
    auto duration = parse_duration(o.duration);
    if (!duration || duration->count() <= 0)
        return make_error(fmt::format("--duration {}: use e.g. 5s", o.duration));
    auto warmup = parse_duration(o.warmup);
    if (!warmup) return make_error(fmt::format("--warmup {}: use e.g. 1s", o.warmup));
    auto window = parse_duration(o.window);
    if (!window || window->count() <= 0)
        return make_error(fmt::format("--window {}: use e.g. 100ms", o.window));
    TestSpec s;
    s.iterations = o.iterations;
    s.duration = *duration;
    s.tx_depth = o.tx_depth;
    s.cq_moderation = o.cq_mod;
    s.inline_max = o.inline_max;
    s.window = *window;
    s.warmup_time = *warmup;
    return s;
}

/// --sweep's sizes: 2 bytes up to --max-size, doubling; none without it.
Result<std::vector<uint32_t>> sweep_sizes(const TestMatrixRequest& o) {
    std::vector<uint32_t> sizes;
    if (o.sweep) {
        auto max = parse_size(o.max_size);
        if (!max) return make_error(fmt::format("--max-size {}: use e.g. 64K", o.max_size));
        for (uint32_t s = 2; s <= *max; s *= 2) sizes.push_back(s);
    }
    return sizes;
}

struct Choice {
    std::vector<Op> ops;
    std::vector<Measure> measures;
};

/// The operations and measures of --all, or of --test, --latency and --bandwidth.
Result<Choice> choice_of(const TestMatrixRequest& o) {
    Choice c;
    if (o.all) {
        c.ops = {Op::Write, Op::Read, Op::Send};
        c.measures = {Measure::Bandwidth, Measure::Latency};
        return c;
    }
    for (const std::string& t : o.tests) {
        auto op = parse_op(t);
        if (!op) return make_error(fmt::format("--test {}: use write, read or send", t));
        c.ops.push_back(*op);
    }
    if (o.latency) c.measures.push_back(Measure::Latency);
    if (o.bandwidth || !o.latency) c.measures.push_back(Measure::Bandwidth);
    return c;
}

/// Without a sweep: --size, else perftest's default for the measure.
Result<uint32_t> size_for(Measure m, const TestMatrixRequest& o) {
    if (o.size.empty()) return m == Measure::Bandwidth ? 65536U : 2U;  // perftest's defaults
    auto s = parse_size(o.size);
    if (!s) return make_error(fmt::format("--size {}: use bytes, or e.g. 4K, 1M", o.size));
    return *s;
}

/// The run's plan, from every input but the names file and the device: a
/// typo is exit 2 before a missing device's 3.
Result<RunPlan> plan_of(const PerfRunRequest& o) {
    for (const std::string& p : o.peers) {
        if (auto c = check_peer_name(p); !c) return c.error();
    }
    auto specs = test_matrix(o.tests);
    if (!specs) return specs.error();
    if (!(o.degraded_at > 0 && o.degraded_at <= 1))
        return make_error("--degraded-at: a share between 0 and 1, e.g. 0.7");
    RunPlan plan;
    plan.peers = o.peers;
    plan.specs = *specs;
    plan.peer = o.peer;
    plan.degraded_at = o.degraded_at;
    if (!o.thresholds.empty()) {
        auto t = load_thresholds(o.thresholds);
        if (!t) return t.error();
        plan.peer.congestion = t->roce;
    }
    if (!o.secret_file.empty()) {
        auto secret = read_secret_file(o.secret_file);
        if (!secret) return secret.error();
        plan.peer.secret = *secret;
    }
    return plan;
}

}  // namespace

Result<std::vector<TestSpec>> test_matrix(const TestMatrixRequest& request) {
    auto common = common_spec(request);
    if (!common) return common.error();
    auto sizes = sweep_sizes(request);
    if (!sizes) return sizes.error();
    auto choice = choice_of(request);
    if (!choice) return choice.error();
    std::vector<TestSpec> out;
    for (Measure m : choice->measures) {
        std::vector<uint32_t> sz = *sizes;
        if (sz.empty()) {
            auto one = size_for(m, request);
            if (!one) return one.error();
            sz.push_back(*one);
        }
        for (Op op : choice->ops) {
            for (uint32_t size : sz) {
                TestSpec s = *common;
                s.op = op;
                s.measure = m;
                s.bidirectional = request.bidir && m == Measure::Bandwidth;
                s.size = size;
                out.push_back(s);
            }
        }
    }
    return out;
}

Result<RunOutcome> run_perf_matrix(const PerfRunRequest& request, const OpenDevice& open,
                                   const ArmStop& arm_stop) {
    auto plan = plan_of(request);
    if (!plan) return plan.error();
    auto loaded = load_host_names(request.names);
    if (!loaded) return loaded.error();
    const HostNames names = std::move(loaded).value();
    auto dev = open(request.device, request.port);
    if (!dev) return dev.error();
    // Only Soft-RoCE's port is known from the QPNs (trace/roce_sport.h).
    if (!request.no_trace && is_soft_roce((*dev)->name())) {
        TraceOptions t;
        t.timeout = Millis(300);
        plan->peer.trace_flow = [names, t](const EndpointInfo& local, const EndpointInfo& remote) {
            return trace_rxe_flow(local, remote, t, names);
        };
    }
    const StopToken& stop = arm_stop();
    RunTable table;
    bool progress = request.progress;
    return run_tests(**dev, *plan, stop, [&](const TestResult& r, bool reachable) {
        if (progress && reachable) std::fputs(table.lines(r).c_str(), stderr);
    });
}

}  // namespace fabscope::perf
