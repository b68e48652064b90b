#pragma once
// The report as Markdown, for pasting into a ticket or a chat: the verdict,
// the findings with their evidence, the marked links, the pair results and
// the run, as GitHub-flavoured tables. Text from the fabric is escaped.

#include <string>

#include "reports/report_model.h"

namespace fabscope {

std::string render_markdown_report(const ReportModel& m);

}  // namespace fabscope
