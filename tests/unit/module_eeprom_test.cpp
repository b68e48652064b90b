// Module memory maps decoded from byte fixtures. The fixtures are synthetic:
// built here from the page layouts of SFF-8636 (lower page 00h, upper pages
// 00h and 03h) and CMIS 5 (lower page, upper pages 00h, 01h, 02h and 11h),
// as ethtool's qsfp.h and cmis.h number them; no module was read.

#include "formats/module_eeprom.h"

#include <gtest/gtest.h>

#include <string>

#include "host/health_checks.h"
#include "host/health_json.h"
#include "host/inventory.h"
#include "reports/cables_doc.h"
#include "reports/csv_report.h"
#include "reports/html_report.h"
#include "reports/junit_report.h"
#include "reports/markdown_report.h"
#include "reports/report_model.h"
#include "roce_host_fixture.h"
#include "schema_check.h"

namespace fabscope {
namespace {

/// A module's pages being written: bytes by the spec's address.
struct PageWriter {
    ModulePages& p;
    uint8_t page = 0;
    uint8_t& at(size_t a) { return a < 128 ? p.lower[a] : p.upper[page][a - 128]; }
    void u8(size_t a, uint8_t v) { at(a) = v; }
    void u16(size_t a, unsigned v) {
        at(a) = static_cast<uint8_t>(v >> 8U);
        at(a + 1) = static_cast<uint8_t>(v & 0xFFU);
    }
    void text(size_t a, size_t len, const std::string& s) {
        for (size_t i = 0; i < len; ++i)
            at(a + i) = static_cast<uint8_t>(i < s.size() ? s[i] : ' ');
    }
    /// Four thresholds (high alarm, low alarm, high warning, low warning), raw.
    void four(size_t a, unsigned ha, unsigned la, unsigned hw, unsigned lw) {
        u16(a, ha), u16(a + 2, la), u16(a + 4, hw), u16(a + 6, lw);
    }
};

unsigned raw_c(double c) {  // 1/256 degC, two's complement
    return static_cast<uint16_t>(static_cast<int16_t>(c * 256));
}

/// A QSFP28 100G SR4 at 35 degC whose lane 2 receives 0.03 mW (-15.2 dBm),
/// below its low alarm of -14 dBm, and which latched lane 1's rx low alarm.
ModulePages qsfp28() {
    ModulePages p;
    PageWriter lo{p, 0};
    lo.u8(0, 0x11);
    lo.u8(2, 0x00);  // paged: page 03h is there
    lo.u16(22, raw_c(35));
    lo.u16(26, 33000);  // 3.3 V
    const unsigned rx[] = {5000, 300, 6000, 5500};
    for (int ch = 0; ch < 4; ++ch) {
        lo.u16(34 + 2 * ch, rx[ch]);
        lo.u16(42 + 2 * ch, 3000);  // 6 mA
        lo.u16(50 + 2 * ch, 6000);  // 0.6 mW
    }
    lo.u8(9, 0x40);  // lane 1 rx power low alarm (bit 6 of the high nibble)
    lo.u8(128, 0x11);
    lo.text(148, 16, "MELLANOX");
    lo.u8(165, 0x00), lo.u8(166, 0x02), lo.u8(167, 0xc9);
    lo.text(168, 16, "MMA1B00-C100D");
    lo.text(184, 2, "A0");
    lo.text(196, 16, "MT2104FT01234");
    lo.text(212, 8, "210125");
    lo.u8(143, 35);    // OM3, 2 m units: 70 m
    lo.u8(147, 0x00);  // 850 nm VCSEL
    lo.u8(220, 0x3C);  // temperature, supply, average rx, tx power monitored
    PageWriter p3{p, 3};
    p3.four(128, raw_c(75), raw_c(-5), raw_c(70), raw_c(0));
    p3.four(144, 36300, 29700, 34650, 31350);
    p3.four(176, 34000, 398, 20000, 1000);  // rx: 3.4 mW, -14 dBm, 2 mW, -10 dBm
    p3.four(184, 7500, 1000, 6500, 1500);
    p3.four(192, 22000, 500, 17000, 1000);
    return p;
}

/// A QSFP-DD 400G at 75 degC (its high alarm is 70) on four of its eight
/// lanes, lane 3 dark, with Tx bias in units of 2 uA x 2.
ModulePages qsfp_dd() {
    ModulePages p;
    PageWriter lo{p, 0};
    lo.u8(0, 0x18);
    lo.u8(2, 0x00);
    lo.u8(3, 3 << 1);  // ModuleReady
    lo.u16(14, raw_c(75));
    lo.u16(16, 33000);
    lo.u8(9, 0x01);   // temperature high alarm, latched
    lo.u8(85, 0x02);  // single-mode fibre
    lo.text(129, 16, "NVIDIA");
    lo.text(148, 16, "MMS1X00-NS400");
    lo.text(164, 2, "A1");
    lo.text(166, 16, "MT2230FT00042");
    lo.text(182, 8, "220725");
    lo.u8(202, 0x40 | 5);  // x1 m: 5 m
    PageWriter p1{p, 1};
    p1.u8(160, 0x07 | 0x08);  // bias, tx power, rx power monitored; bias x2
    PageWriter p2{p, 2};
    p2.four(128, raw_c(70), raw_c(-5), raw_c(65), raw_c(0));
    p2.four(136, 36300, 29700, 34650, 31350);
    p2.four(176, 40000, 1000, 30000, 2000);  // tx power
    p2.four(184, 6000, 500, 5000, 1000);     // tx bias, raw (x 2 uA x 2)
    p2.four(192, 40000, 400, 30000, 800);    // rx power
    PageWriter p11{p, 0x11};
    for (int i = 0; i < 4; ++i) {
        p11.u16(154 + 2 * i, 10000);                 // 1 mW
        p11.u16(170 + 2 * i, 4000);                  // 16 mA
        p11.u16(186 + 2 * i, i == 2 ? 0U : 12000U);  // lane 3 dark
    }
    p11.u8(150, 0x04);  // rx power low alarm, lane 3 (bit 2)
    return p;
}

/// A host of two ports: mlx5_0 port 1 (eth2) holding qsfp28(), rxe0 port 1
/// without a module (a veth).
host::HostInventory two_ports() {
    return testing::roce_host(*decode_module(qsfp28()));
}

TEST(ModuleEeprom, Sff8636IdentityMonitorsAndItsOwnLimits) {
    ModulePages p = qsfp28();
    EXPECT_EQ(module_pages_to_read(p.lower), std::vector<uint8_t>{3});
    auto m = decode_module(p);
    ASSERT_TRUE(m) << m.error().message;
    EXPECT_EQ(m->type, "QSFP28");
    EXPECT_EQ(m->vendor, "MELLANOX");
    EXPECT_EQ(m->oui, "00:02:c9");
    EXPECT_EQ(m->part_number, "MMA1B00-C100D");
    EXPECT_EQ(m->revision, "A0");
    EXPECT_EQ(m->serial, "MT2104FT01234");
    EXPECT_EQ(m->date_code, "210125");
    EXPECT_EQ(m->media, "optical");
    EXPECT_EQ(m->length_m, 70);
    EXPECT_DOUBLE_EQ(*m->temperature_c, 35);
    EXPECT_NEAR(*m->supply_v, 3.3, 1e-9);
    ASSERT_EQ(m->lanes.size(), 4u);
    EXPECT_NEAR(*m->lanes[1].rx_power_mw, 0.03, 1e-9);
    EXPECT_NEAR(*m->lanes[0].tx_bias_ma, 6.0, 1e-9);
    EXPECT_NEAR(*m->lanes[3].tx_power_mw, 0.6, 1e-9);
    EXPECT_DOUBLE_EQ(m->temperature_limits->low_alarm, -5);
    EXPECT_NEAR(m->rx_power_limits->low_alarm, 0.0398, 1e-9);
    EXPECT_EQ(m->flags, std::vector<std::string>{"lane 1 rx power low alarm"});
    auto issues = module_issues(*m);
    ASSERT_EQ(issues.size(), 2u);
    EXPECT_TRUE(issues[0].alarm);
    EXPECT_EQ(issues[0].what, "lane 2 receives -15.2 dBm, below its low alarm -14.0 dBm");
    EXPECT_FALSE(issues[1].alarm);
    EXPECT_NE(issues[1].what.find("latched a lane 1 rx power low alarm"), std::string::npos);
}

TEST(ModuleEeprom, FlatMemoryHasNoThresholdsAndNoFlags) {
    ModulePages p = qsfp28();
    p.lower[2] = 0x04;  // Flat_mem
    p.upper.erase(3);
    EXPECT_TRUE(module_pages_to_read(p.lower).empty());
    auto m = decode_module(p);
    ASSERT_TRUE(m);
    EXPECT_FALSE(m->rx_power_limits);
    EXPECT_TRUE(m->flags.empty());
    EXPECT_TRUE(module_issues(*m).empty()) << "no limits of its own: nothing to hold it to";
}

TEST(ModuleEeprom, CmisLanesLimitsAndTheBiasMultiplier) {
    ModulePages p = qsfp_dd();
    EXPECT_EQ(module_pages_to_read(p.lower), (std::vector<uint8_t>{1, 2, 0x11}));
    auto m = decode_module(p);
    ASSERT_TRUE(m) << m.error().message;
    EXPECT_EQ(m->type, "QSFP-DD");
    EXPECT_EQ(m->family, ModuleFamily::Cmis);
    EXPECT_EQ(m->state, "ready");
    EXPECT_EQ(m->vendor, "NVIDIA");
    EXPECT_EQ(m->part_number, "MMS1X00-NS400");
    EXPECT_EQ(m->serial, "MT2230FT00042");
    EXPECT_EQ(m->media, "optical");
    EXPECT_EQ(m->length_m, 5);
    ASSERT_EQ(m->lanes.size(), 4u) << "lanes 5-8 read zero everywhere: not in use";
    EXPECT_NEAR(*m->lanes[0].tx_bias_ma, 16.0, 1e-9) << "4000 x 2 uA x 2 (the spec multiplies)";
    EXPECT_NEAR(m->tx_bias_limits->high_alarm, 24.0, 1e-9);
    EXPECT_EQ(*m->lanes[2].rx_power_mw, 0);
    EXPECT_EQ(m->flags,
              (std::vector<std::string>{"temperature high alarm", "lane 3 rx power low alarm"}));
    auto issues = module_issues(*m);
    ASSERT_GE(issues.size(), 2u);
    EXPECT_EQ(issues[0].what, "temperature 75.0 degC, above its high alarm 70.0 degC");
    EXPECT_TRUE(issues[0].alarm);
    EXPECT_EQ(issues[1].what, "lane 3 receives -inf dBm, below its low alarm -14.0 dBm");
}

TEST(ModuleEeprom, WhatItDoesNotDecodeIsNamed) {
    ModulePages sfp;
    sfp.lower[0] = 0x03;
    auto m = decode_module(sfp);
    ASSERT_FALSE(m);
    EXPECT_NE(m.error().message.find("SFP module"), std::string::npos) << m.error().message;
    ModulePages no_page0;
    no_page0.lower[0] = 0x11;
    EXPECT_FALSE(decode_module(no_page0));
    EXPECT_EQ(format_dbm(1.0), "0.0 dBm");
    EXPECT_EQ(format_dbm(0.0), "-inf dBm");
    EXPECT_EQ(module_type_name(0x42), "identifier 0x42");
}

TEST(ModuleHealth, AModuleBeyondItsAlarmFailsTheHostAVethHasNoFinding) {
    ASSERT_TRUE(decode_module(qsfp28()));
    host::HostInventory inv = two_ports();
    auto found = host::check_modules(inv);
    ASSERT_EQ(found.size(), 2u);
    EXPECT_EQ(found[0].check, "module");
    EXPECT_EQ(found[0].severity, host::HealthSeverity::Error);
    EXPECT_EQ(found[0].message,
              "mlx5_0 port 1 (eth2) module MELLANOX MMA1B00-C100D MT2104FT01234: lane 2 "
              "receives -15.2 dBm, below its low alarm -14.0 dBm");
    EXPECT_EQ(found[1].severity, host::HealthSeverity::Warning);

    // What health --json writes of them: both families, a veth's "none".
    auto dd = decode_module(qsfp_dd());
    ASSERT_TRUE(dd);
    inv.devices[0].ports.push_back(inv.devices[0].ports[0]);
    inv.devices[0].ports[1].port = 2;
    inv.devices[0].ports[1].module->info = *dd;
    host::HealthMeta meta{"node01", "2026-12-05T04:00:00Z", 1.5, "", false};
    nlohmann::json doc = host::health_to_json(inv, host::check_health(inv, {}, std::nullopt), meta);
    for (const auto& e : testing::schema_errors(doc, "health.schema.json")) ADD_FAILURE() << e;
    const auto& mod = doc["inventory"]["devices"][0]["ports"][1]["module"];
    EXPECT_EQ(mod["spec"], "CMIS");
    EXPECT_EQ(mod["lanes"].size(), 4u);
    EXPECT_EQ(doc["inventory"]["devices"][1]["ports"][0]["module"]["status"], "none");
}

// What `fabscope report` makes of a health document: the cables section
// names the module to replace (vendor, part number, serial), its weakest
// lane and what its thresholds say; the module's alarm is an error finding
// (the verdict FAIL), a failing JUnit case of the cables suite, a CABLES
// record; a veth without a module is a row, not a finding.
TEST(ModuleReport, TheCablesSectionNamesTheModuleToReplace) {
    const host::HostInventory inv = two_ports();
    host::HealthMeta meta{"node01", "2026-12-05T04:00:00Z", 1.5, "", false};
    const nlohmann::json doc =
        host::health_to_json(inv, host::check_health(inv, {}, std::nullopt), meta);

    auto cables = host_cables_from_json(doc);
    ASSERT_TRUE(cables) << cables.error().message;
    ASSERT_EQ(cables->rows.size(), 2u);
    const CableRow& r = cables->rows[0];
    EXPECT_EQ(r.serial, "MT2104FT01234");
    EXPECT_EQ(r.severity, Severity::Error);
    EXPECT_EQ(r.min_rx_lane, 2);
    ASSERT_EQ(cables->findings.size(), 2u);  // the rx alarm, the latched flag
    EXPECT_EQ(cables->rows[1].status, "none");
    EXPECT_TRUE(cables->rows[1].issues.empty());

    RunDocs runs;
    runs.cables.push_back(*cables);
    ReportModel m = build_report(std::nullopt, std::nullopt, {}, {}, std::nullopt, runs);
    EXPECT_EQ(m.verdict(), "FAIL");
    EXPECT_EQ(m.count(Severity::Error), 1u);
    const std::string html = render_html_report(m);
    EXPECT_NE(html.find("<section id=\"cables\">"), std::string::npos);
    EXPECT_NE(html.find("MELLANOX MMA1B00-C100D rev A0 serial MT2104FT01234, 70 m optical "
                        "QSFP28 (SFF-8636)"),
              std::string::npos)
        << html;
    EXPECT_NE(html.find("lane 2 -15.2 dBm"), std::string::npos);
    EXPECT_NE(html.find("no module: Operation not supported"), std::string::npos);
    const std::string md = render_markdown_report(m);
    EXPECT_NE(md.find("| node01 mlx5\\_0/1 (eth2) | **error** |"), std::string::npos) << md;
    EXPECT_NE(md.find("| lane 2 receives -15.2 dBm, below its low alarm -14.0 dBm; the module "
                      "latched a lane 1 rx power low alarm since its flags were last read |"),
              std::string::npos)
        << md;
    const std::string csv = render_csv_report(m);
    EXPECT_NE(csv.find("START_CABLES"), std::string::npos) << csv;
    EXPECT_NE(csv.find("MT2104FT01234"), std::string::npos);
    const std::string xml = render_junit_report(m);
    EXPECT_NE(xml.find("<testsuite name=\"cables\" tests=\"2\" failures=\"1\""), std::string::npos)
        << xml;

    // Bounded and checked: a port number out of range names its path.
    nlohmann::json bad = doc;
    bad["inventory"]["devices"][0]["ports"][0]["port"] = 300;
    auto e = host_cables_from_json(bad);
    ASSERT_FALSE(e);
    EXPECT_NE(e.error().message.find("port"), std::string::npos) << e.error().message;
}

}  // namespace
}  // namespace fabscope
