#include "reports/prometheus_textfile.h"

#include <chrono>

#include "model/json_io.h"

namespace fabscope {

Status write_prom_textfile(const std::string& path, const PromInput& in) {
    const std::string text = render_prometheus(in);
    return json_io::write_file_atomically(path, [&](std::ostream& out) { out << text; });
}

double prom_unix_now() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

}  // namespace fabscope
