// DCB settings: trust and RoCE priority from the app table, and dcb.json.

#include "congestion/dcb_settings.h"

#include <gtest/gtest.h>

namespace fabscope {
namespace {

TEST(DcbSettings, TrustAndRocePriorityFromTheAppTable) {
    DcbSettings s;
    s.netdev = "eth2";
    s.available = true;
    s.pfc_enabled = 1U << 3;
    s.apps = {{5, 26, 3}, {5, 48, 6}};
    EXPECT_EQ(s.trust(), "dscp");
    EXPECT_FALSE(s.roce_priority().has_value());
    s.apps.push_back({3, 4791, 3});
    EXPECT_EQ(s.roce_priority(), 3);
    EXPECT_TRUE(s.pfc_on(3));
    EXPECT_FALSE(s.pfc_on(4));
    s.apps = {{1, 0x8915, 4}};
    EXPECT_EQ(s.trust(), "pcp");
    EXPECT_EQ(s.roce_priority(), 4);
}

TEST(DcbSettings, JsonRoundTrip) {
    DcbSettings s;
    s.netdev = "eth2";
    s.available = true;
    s.standard = "ieee";
    s.pfc_enabled = (1U << 3) | (1U << 4);
    s.pfc_cap = 8;
    s.apps = {{5, 26, 3}, {3, 4791, 3}};
    auto back = dcb_from_json(dcb_to_json(s), "eth2", "dcb.json");
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(back->pfc_enabled, s.pfc_enabled);
    EXPECT_EQ(back->apps, s.apps);
    EXPECT_EQ(back->pfc_cap, 8);
    EXPECT_EQ(dcb_to_json(s)["roce_priority"], 3);
    EXPECT_EQ(dcb_to_json(s)["trust"], "dscp");
}

TEST(DcbSettings, BadJsonNamesFileAndNetdev) {
    auto j = nlohmann::json::parse(R"({"available": true, "pfc_enabled": [9]})");
    auto r = dcb_from_json(j, "eth2", "h1/dcb.json");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().message, "h1/dcb.json: eth2: \"pfc_enabled\": priorities are 0..7");
    j = nlohmann::json::parse(
        R"({"available": true, "pfc_enabled": [], "apps": [{"selector": "ip", "protocol": 1, "priority": 1}]})");
    EXPECT_FALSE(dcb_from_json(j, "eth2", "f"));
    auto off = dcb_from_json(nlohmann::json::parse(R"({"available": false, "unavailable": "x"})"),
                             "eth2", "f");
    ASSERT_TRUE(off);
    EXPECT_EQ(off->unavailable_message(), "DCB not available on eth2 (x)");
}

}  // namespace
}  // namespace fabscope
