#pragma once
// The routing section of the HTML and Markdown reports (reports/routing_doc.h):
// the forwarding tables' verdict line, each credit loop's cables in order
// (the drawing puts numbered arrows on them), and the uplink balance per
// leaf, imbalanced leaves first. Empty when the snapshot has no tables.

#include <string>

#include "reports/report_model.h"

namespace fabscope {

/// At most this many leaves in the balance table: every imbalanced one, then
/// the most uneven of the rest (a 4,096-host fabric has a hundred leaves).
constexpr size_t kBalanceRows = 32;

std::string routing_html(const ReportModel& m);
std::string routing_md(const ReportModel& m);

}  // namespace fabscope
