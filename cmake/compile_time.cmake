# Compile time: CI's cold Release build on 2 cores is half of its 45-minute
# limit (docs/ci.md). Included at the end of the top-level CMakeLists.txt,
# when every target exists, so test folders need no line of their own.

# Precompiled headers: nlohmann/json, fmt, Boost.Graph, CLI11, GoogleTest and
# the standard headers nearly every file includes are parsed once per target,
# not once per file. Off by default (`FABSCOPE_PCH=ON scripts/build` turns it
# on), because a PCH hides a forgotten #include: a developer's build without it
# still proves that every file includes what it uses, and `clang-tidy -p build`
# keeps working (clang cannot read GCC's .gch; scripts/lint_units.py drops the
# PCH flags, so the lint also works on a build with them). Not yet on in CI:
# docs/ci.md says what is left to measure first.
option(FABSCOPE_PCH "Precompile the big headers most files include" OFF)

set(FABSCOPE_PCH_HEADERS
    <algorithm> <array> <chrono> <cstdint> <filesystem> <fstream> <functional> <map>
    <memory> <optional> <set> <sstream> <string> <string_view> <vector>
    <boost/graph/adjacency_list.hpp> <fmt/format.h> <nlohmann/json.hpp>)

if(FABSCOPE_PCH)
  # The product libraries are compiled with the same flags: fabscope_model
  # builds the PCH and the others reuse it. GCC refuses a PCH built under other
  # definitions of macros its headers read (-Winvalid-pch, an error under
  # FABSCOPE_WERROR): a library given definitions of its own (as ncurses gives
  # _DEFAULT_SOURCE) wants its own PCH, like the executables below.
  set(reusing fabscope_discover fabscope_congestion fabscope_host fabscope_rdma_spec fabscope_trace
              fabscope_schedule fabscope_pairtest_results fabscope_pairtest fabscope_ranks
              fabscope_mesh_results fabscope_mesh fabscope_reports fabscope_lab fabscope_tui)
  target_precompile_headers(fabscope_model PRIVATE ${FABSCOPE_PCH_HEADERS})
  foreach(target ${reusing})
    target_precompile_headers(${target} REUSE_FROM fabscope_model)
  endforeach()
  # GCC 12 reports -Wstringop-overread and -Wstringop-overflow on std::string
  # copies inlined from the PCH's <string> (model/validation.cpp and
  # host/rdma_nl_parse.cpp at -O3, tests/unit/ethtool_stats_test.cpp at -O1;
  # the same code without the PCH is clean): known false positives of its
  # inliner, which warnings-as-errors would make a failed build.
  set(overread_quiet fabscope_model ${reusing} fabscope)
  target_precompile_headers(fabscope PRIVATE ${FABSCOPE_PCH_HEADERS} <CLI/CLI.hpp>)
  set(tests "")
  foreach(target unit_tests cli_tests lab_tests)
    if(TARGET ${target})
      target_precompile_headers(${target} PRIVATE ${FABSCOPE_PCH_HEADERS} <gtest/gtest.h>)
      list(APPEND tests ${target})
    endif()
  endforeach()
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    foreach(target ${overread_quiet} ${tests})
      target_compile_options(${target} PRIVATE -Wno-stringop-overread -Wno-stringop-overflow)
    endforeach()
  endif()
  # ccache caches compiles that use a PCH well only with this sloppiness (its
  # manual, "Precompiled headers").
  if(CMAKE_CXX_COMPILER_LAUNCHER MATCHES "ccache")
    foreach(target fabscope_model ${reusing} fabscope ${tests})
      set_property(TARGET ${target} PROPERTY CXX_COMPILER_LAUNCHER
        env CCACHE_SLOPPINESS=pch_defines,time_macros ${CMAKE_CXX_COMPILER_LAUNCHER})
    endforeach()
  endif()
endif()

