#include "reports/severity_tag.h"

namespace fabscope {

std::string severity_tag(const TextStyle& st, Severity s) {
    switch (s) {
        case Severity::Error: return st.red("error  ");
        case Severity::Warning: return st.yellow("warning");
        case Severity::Info: return st.dim("info   ");
    }
    return "";
}

}  // namespace fabscope
