#include "vm_run.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "lab_harness.h"
#include "schema_check.h"

namespace fabscope::labtest {

namespace fs = std::filesystem;
using nlohmann::json;

json VmRun::file(const std::string& name, const std::string& schema) const {
    std::ifstream in(dir / name);
    if (!in) {
        ADD_FAILURE() << name << " was not written; guest output:\n" << output;
        return json::object();
    }
    std::ostringstream text;
    text << in.rdbuf();
    for (const auto& e : fabscope::testing::text_schema_errors(text.str(), schema))
        ADD_FAILURE() << name << ": " << e;
    return json::parse(text.str());
}

std::string VmRun::value(const std::string& key) const {
    std::istringstream in(output);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind(key + "=", 0) == 0) return line.substr(key.size() + 1);
    }
    ADD_FAILURE() << "no " << key << "= in the guest output:\n" << output;
    return "";
}

VmRun run_in_vm(const std::string& name, const std::string& script, std::chrono::seconds limit) {
    fs::path dir =
        fs::temp_directory_path() / ("fabscope-vm-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    fs::path file = dir.string() + ".sh";
    std::ofstream(file) << "F=$(guest_path " << fabscope() << ")\n" << script;
    auto t0 = std::chrono::steady_clock::now();
    CmdResult r =
        run({std::string(FABSCOPE_SOURCE_DIR) + "/lab/rxe/vm", "-o", dir.string(), file.string()},
            limit);
    VmRun v;
    v.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    v.exit_code = r.exit_code;
    v.dir = dir;
    std::ifstream out(dir / "output.log");
    v.output.assign(std::istreambuf_iterator<char>(out), std::istreambuf_iterator<char>());
    EXPECT_EQ(r.exit_code, 0) << "the VM did not run the scenario:\n" << r.err << "\n" << v.output;
    fs::remove(file);
    return v;
}

}  // namespace fabscope::labtest
