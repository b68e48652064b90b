// The SA path record query of `fabscope health`: the request's bytes, the
// decoding and bounds checks of the SA's answer, the query over the MAD
// engine against a small SA that answers, stays silent or answers wrong,
// and the findings health draws from it.

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <deque>
#include <filesystem>

#include "discover/sa_path_record.h"
#include "discover/sa_self_query.h"
#include "host/health_sa.h"
#include "util/clock.h"

namespace fabscope {
namespace {

constexpr const char* kGidText = "fe80:0000:0000:0000:0c42:a103:0012:3456";

sa::Gid gid() {
    return *sa::parse_gid(kGidText);
}

// A PathRecord as OpenSM answers a path from a port at LID 0x12 to itself:
// MTU 4096 (5), rate 200 Gb/s (22), SL 0, P_Key 0xffff, reversible, one path.
std::vector<uint8_t> record_bytes(uint16_t lid) {
    std::vector<uint8_t> r(sa::kPathRecordSize, 0);
    sa::Gid g = gid();
    std::copy(g.begin(), g.end(), r.begin() + 8);   // DGID
    std::copy(g.begin(), g.end(), r.begin() + 24);  // SGID
    r[40] = static_cast<uint8_t>(lid >> 8);         // DLID
    r[41] = static_cast<uint8_t>(lid);
    r[42] = static_cast<uint8_t>(lid >> 8);  // SLID
    r[43] = static_cast<uint8_t>(lid);
    r[47] = 0;     // HopLimit
    r[49] = 0x81;  // Reversible, NumbPath 1
    r[50] = 0xff;  // P_Key
    r[51] = 0xff;
    r[54] = 0x80 | 5;   // MTUSelector "exactly", 4096
    r[55] = 0x80 | 22;  // RateSelector "exactly", 200 Gb/s
    r[56] = 0x80 | 18;  // PacketLifeTime
    return r;
}

MadBytes reply_to(const mad::Request& req, const std::vector<uint8_t>& record, uint16_t status) {
    MadBytes q = mad::encode_get(req, 0x1234);
    return mad::make_response(q, record, status);
}

TEST(SaPath, GidTextRoundTrips) {
    EXPECT_EQ(sa::gid_text(gid()), kGidText);
    EXPECT_FALSE(sa::parse_gid("fe80::1"));
    EXPECT_FALSE(sa::parse_gid("fe80:0000:0000:0000:0c42:a103:0012:345g"));
    EXPECT_FALSE(sa::parse_gid("fe80-0000:0000:0000:0c42:a103:0012:3456"));
}

TEST(SaPath, RequestIsASubnAdmGetOfOnePathFromTheGidToItself) {
    MadBytes m = mad::encode_get(sa::path_request(7, gid(), gid()), 0x0102030405060708ULL);
    EXPECT_EQ(m[0], 1);     // BaseVersion
    EXPECT_EQ(m[1], 0x03);  // SubnAdm
    EXPECT_EQ(m[2], 2);     // SA class version
    EXPECT_EQ(m[3], 0x01);  // SubnAdmGet
    EXPECT_EQ(m[16], 0x00);
    EXPECT_EQ(m[17], 0x35);  // PathRecord
    // ComponentMask: DGID (bit 2), SGID (bit 3), NumbPath (bit 12).
    EXPECT_EQ(m[54], 0x10);
    EXPECT_EQ(m[55], 0x0c);
    for (size_t i = 48; i < 54; ++i) EXPECT_EQ(m[i], 0) << i;
    sa::Gid g = gid();
    EXPECT_TRUE(std::equal(g.begin(), g.end(), m.begin() + 56 + 8));
    EXPECT_TRUE(std::equal(g.begin(), g.end(), m.begin() + 56 + 24));
    EXPECT_EQ(m[56 + 49], 1);  // NumbPath
    EXPECT_EQ(sa::path_request(7, gid(), gid()).to.lid, 7);
}

TEST(SaPath, ReplyIsDecoded) {
    auto req = sa::path_request(1, gid(), gid());
    auto r = sa::decode_path_reply(reply_to(req, record_bytes(0x12), 0));
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->slid, 0x12);
    EXPECT_EQ(r->dlid, 0x12);
    EXPECT_EQ(r->sgid, gid());
    EXPECT_EQ(r->dgid, gid());
    EXPECT_EQ(r->pkey, 0xffff);
    EXPECT_EQ(r->mtu, 5);
    EXPECT_EQ(sa::mtu_bytes(r->mtu), 4096);
    EXPECT_EQ(r->rate, 22);
    EXPECT_EQ(r->packet_life, 18);
    EXPECT_TRUE(r->reversible);
    EXPECT_EQ(r->numb_path, 1);
}

TEST(SaPath, BadRepliesAreErrorsThatSayWhy) {
    auto req = sa::path_request(1, gid(), gid());
    auto msg = [](const MadBytes& m) {
        auto r = sa::decode_path_reply(m);
        return r ? std::string("decoded") : r.error().message;
    };
    EXPECT_EQ(msg(reply_to(req, {}, 0x0300)), "SA has no such record (ERR_NO_RECORDS)");
    EXPECT_EQ(msg(reply_to(req, {}, 0x0500)), "SA does not know the GID (ERR_REQ_INVALID_GID)");
    EXPECT_EQ(msg(reply_to(req, std::vector<uint8_t>(64, 0), 0)),
              "the SA answered an empty PathRecord");
    MadBytes m = reply_to(req, record_bytes(0x12), 0);
    m[45] = 30;  // AttributeOffset of 240 bytes: more than the SA data holds
    EXPECT_EQ(msg(m),
              "AttributeOffset 30 (240 bytes) does not hold one PathRecord of 64 bytes in 200 "
              "bytes of data");
    m[45] = 4;  // 32 bytes: less than one record
    EXPECT_NE(msg(m).find("AttributeOffset 4"), std::string::npos);
    m = reply_to(req, record_bytes(0x12), 0);
    m[2] = 1;
    EXPECT_EQ(msg(m), "not an SA reply (base version 1, class 0x03, class version 1)");
    m = reply_to(req, record_bytes(0x12), 0);
    m[3] = 0x01;
    EXPECT_EQ(msg(m), "not a response (method 0x01)");
    m = reply_to(req, record_bytes(0x12), 0);
    m[17] = 0x11;
    EXPECT_EQ(msg(m), "answered attribute 0x0011, not PathRecord");
}

// An SA behind the MadTransport seam: answers each SubnAdmGet after 1 ms
// with what it is told, or not at all.
class FakeSa final : public MadTransport {
  public:
    explicit FakeSa(ManualClock& clock) : clock_(clock) {}
    std::optional<std::vector<uint8_t>> record;  ///< nullopt: silent
    uint16_t status = 0;
    int sent = 0;
    Lid last_lid = 0;

    Status send(const mad::Address& to, const MadBytes& mad,
                std::chrono::milliseconds /*timeout*/) override {
        ++sent;
        last_lid = to.lid;
        if (record) queue_.push_back(mad::make_response(mad, *record, status));
        return Ok{};
    }
    std::optional<ReceivedMad> receive(std::chrono::milliseconds timeout) override {
        if (queue_.empty()) {
            clock_.advance(timeout);
            return std::nullopt;
        }
        clock_.advance(std::chrono::milliseconds(1));
        ReceivedMad r;
        r.mad = queue_.front();
        queue_.pop_front();
        return r;
    }

  private:
    ManualClock& clock_;
    std::deque<MadBytes> queue_;
};

SaSelfTarget target() {
    return {"mlx5_0", 1, 0x12, 1, gid()};
}

TEST(SaSelfQuery, AnsweredPathIsOk) {
    ManualClock clock;
    FakeSa sa(clock);
    sa.record = record_bytes(0x12);
    SaSelfResult r = query_self_path(sa, clock, target(), {});
    EXPECT_EQ(r.outcome, SaSelfResult::Outcome::Ok) << r.detail;
    ASSERT_TRUE(r.record);
    EXPECT_EQ(r.record->slid, 0x12);
    EXPECT_EQ(sa.sent, 1);
    EXPECT_EQ(sa.last_lid, 1);  // to the SM's LID
    EXPECT_EQ(r.elapsed_ms, 1);
}

TEST(SaSelfQuery, SilentSaIsNoAnswerAfterTwoAttemptsOfTheTimeout) {
    ManualClock clock;
    FakeSa sa(clock);
    SaSelfOptions o;
    o.timeout = std::chrono::milliseconds(50);
    SaSelfResult r = query_self_path(sa, clock, target(), o);
    EXPECT_EQ(r.outcome, SaSelfResult::Outcome::NoAnswer);
    EXPECT_EQ(r.detail, "no answer from the SA at SM LID 1 within 50 ms (2 attempts)");
    EXPECT_EQ(sa.sent, 2);
    EXPECT_EQ(r.elapsed_ms, 100);
}

TEST(SaSelfQuery, WrongOrRefusedAnswersAreErrors) {
    ManualClock clock;
    FakeSa sa(clock);
    sa.record = record_bytes(0x13);
    SaSelfResult r = query_self_path(sa, clock, target(), {});
    EXPECT_EQ(r.outcome, SaSelfResult::Outcome::Error);
    EXPECT_EQ(r.detail,
              "SA at SM LID 1 answered a path from LID 19 to LID 19; the port's LID is 18");
    sa.record = std::vector<uint8_t>{};
    sa.status = 0x0300;
    r = query_self_path(sa, clock, target(), {});
    EXPECT_EQ(r.outcome, SaSelfResult::Outcome::Error);
    EXPECT_EQ(r.detail,
              "SA at SM LID 1 refused the PathRecord query: SA has no such record "
              "(ERR_NO_RECORDS)");
    auto other = record_bytes(0x12);
    other[8 + 15] ^= 1;  // another DGID
    sa.record = other;
    sa.status = 0;
    r = query_self_path(sa, clock, target(), {});
    EXPECT_EQ(r.outcome, SaSelfResult::Outcome::Error);
    EXPECT_NE(r.detail.find("not this port's GID"), std::string::npos) << r.detail;
}

TEST(HealthSaPath, TargetsAreActiveInfinibandPortsWithAnSm) {
    host::HostInventory inv = host::read_inventory(std::string(FIXTURES_DIR) + "/host/healthy");
    auto t = host::sa_path_targets(inv);
    ASSERT_EQ(t.size(), 1U);  // mlx5_1 is RoCE
    EXPECT_EQ(t[0].device, "mlx5_0");
    EXPECT_EQ(t[0].lid, 0x12U);
    EXPECT_EQ(t[0].sm_lid, 1U);
    EXPECT_EQ(t[0].gid, kGidText);
}

TEST(HealthSaPath, APortWithoutLinkLayerIsInfiniband) {
    // The simulator's sysfs tree (and kernels before 2.6.37) have no
    // link_layer; libibumad takes such a port for InfiniBand, and so must we.
    namespace fs = std::filesystem;
    fs::path root = fs::temp_directory_path() / fmt::format("sa_path_test-{}", ::getpid());
    fs::remove_all(root);
    fs::copy(std::string(FIXTURES_DIR) + "/host/healthy", root,
             fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    fs::remove(root / "sys/class/infiniband/mlx5_0/ports/1/link_layer");
    host::HostInventory inv = host::read_inventory(root.string());
    fs::remove_all(root);
    EXPECT_EQ(inv.devices.at(0).ports.at(0).link_layer, "InfiniBand");
    EXPECT_TRUE(inv.problems.empty());
    EXPECT_EQ(host::sa_path_targets(inv).size(), 1U);
}

TEST(HealthSaPath, FailedQueriesAreFindingsNamingPortAndSmLid) {
    host::SaPathCheck ok{
        {"mlx5_0", 1, 0x12, 1, kGidText}, "ok", "", 2, 1, 0x12, 0x12, 4096, 0, 0xffff};
    host::SaPathCheck dead{{"mlx5_1", 1, 0x13, 1, kGidText},
                           "no_answer",
                           "no answer from the SA at SM LID 1 within 100 ms (2 attempts)",
                           200,
                           2,
                           {},
                           {},
                           {},
                           {},
                           {}};
    host::SaPathCheck denied = dead;
    denied.target.device = "mlx5_2";
    denied.outcome = "cannot_run";
    denied.detail = "permission denied";
    auto f = host::check_sa_path({ok, dead, denied});
    ASSERT_EQ(f.size(), 2U);
    EXPECT_EQ(f[0].check, "sa_path");
    EXPECT_EQ(f[0].severity, host::HealthSeverity::Error);
    EXPECT_EQ(f[0].subject, "mlx5_1/1");
    EXPECT_EQ(f[0].message,
              "mlx5_1 port 1: no SA path record to itself (SM LID 1): no answer from the SA at "
              "SM LID 1 within 100 ms (2 attempts)");
    EXPECT_EQ(f[1].severity, host::HealthSeverity::Warning);
    auto j = host::sa_path_to_json({ok, dead});
    EXPECT_EQ(j[0]["path"]["mtu"], 4096);
    EXPECT_TRUE(j[1]["path"].is_null());
}

}  // namespace
}  // namespace fabscope
