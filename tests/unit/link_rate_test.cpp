#include "model/link_rate.h"

#include <gtest/gtest.h>

namespace fabscope {
namespace {

TEST(LinkRate, NamesRoundTrip) {
    for (int i = 0; i < kWidthCount; ++i) {
        auto w = static_cast<Width>(i);
        EXPECT_EQ(parse_width(name(w)), w);
    }
    for (int i = 0; i < kSpeedCount; ++i) {
        auto s = static_cast<Speed>(i);
        EXPECT_EQ(parse_speed(name(s)), s);
    }
    EXPECT_EQ(parse_width("4x"), Width::X4);
    EXPECT_EQ(parse_speed("hdr"), Speed::HDR);
    EXPECT_FALSE(parse_width("3x"));
    EXPECT_FALSE(parse_speed("fast"));
}

TEST(LinkRate, Rates) {
    EXPECT_DOUBLE_EQ(link_data_gbps(Width::X4, Speed::HDR), 200.0);
    EXPECT_DOUBLE_EQ(link_data_gbps(Width::X1, Speed::HDR), 50.0);
    EXPECT_DOUBLE_EQ(link_data_gbps(Width::X4, Speed::EDR), 100.0);
    EXPECT_DOUBLE_EQ(link_data_gbps(Width::X4, Speed::NDR), 400.0);
    EXPECT_DOUBLE_EQ(lane_signal_gbps(Speed::HDR), 53.125);
}

TEST(LinkRate, PortInfoMasks) {
    // LinkWidth: 1=1X 2=4X 4=8X 8=12X 16=2X
    EXPECT_EQ(widths_from_portinfo(3), (WidthSet{Width::X1, Width::X4}));
    EXPECT_EQ(widths_from_portinfo(31).members().size(), 5u);
    EXPECT_EQ(portinfo_width_bits(WidthSet{Width::X2, Width::X12}), 24u);
    EXPECT_EQ(speeds_from_portinfo(7), (SpeedSet{Speed::SDR, Speed::DDR, Speed::QDR}));
    EXPECT_EQ(ext_speeds_from_portinfo(7), (SpeedSet{Speed::FDR, Speed::EDR, Speed::HDR}));
    EXPECT_EQ(ext_speeds_from_portinfo(8), (SpeedSet{Speed::NDR}));
    EXPECT_TRUE(ext_speeds_from_portinfo(30).empty());  // "extended speeds disabled"
    EXPECT_EQ((WidthSet{Width::X1, Width::X4}).best(), Width::X4);
    EXPECT_FALSE(WidthSet{}.best());
    EXPECT_EQ(to_string(SpeedSet{Speed::EDR, Speed::HDR}), "EDR,HDR");
}

}  // namespace
}  // namespace fabscope
