# What `cmake --install` puts where (GNUInstallDirs, Debian's layout under
# /usr), and the .deb that `cpack -G DEB` builds from it.
#   bin/fabscope                                     (cli/CMakeLists.txt)
#   share/man/man1/fabscope.1.gz                     gzip -9n, as Debian policy 12.1 asks
#   share/bash-completion/completions/fabscope       loaded on demand by bash-completion
#   share/fabscope/schemas/*.schema.json             data scripts validate against: not in
#                                                    share/doc, which Debian lets admins drop
#                                                    (dpkg path-exclude) and programs must
#                                                    not need (policy 12.3)
#   share/doc/fabscope/                              README, user guide, exit codes

set(FABSCOPE_MAN_GZ ${CMAKE_BINARY_DIR}/fabscope.1.gz)
add_custom_command(
  OUTPUT ${FABSCOPE_MAN_GZ}
  COMMAND sh -c "gzip -9n < \"$1\" > \"$2\"" gzip ${CMAKE_SOURCE_DIR}/docs/fabscope.1 ${FABSCOPE_MAN_GZ}
  DEPENDS ${CMAKE_SOURCE_DIR}/docs/fabscope.1
  COMMENT "Compressing the man page"
  VERBATIM)
add_custom_target(fabscope_man ALL DEPENDS ${FABSCOPE_MAN_GZ})
install(FILES ${FABSCOPE_MAN_GZ} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

install(FILES ${CMAKE_SOURCE_DIR}/completion/fabscope.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME fabscope)

file(GLOB FABSCOPE_SCHEMAS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/docs/*.schema.json)
install(FILES ${FABSCOPE_SCHEMAS} DESTINATION ${CMAKE_INSTALL_DATADIR}/fabscope/schemas)

install(FILES ${CMAKE_SOURCE_DIR}/README.md ${CMAKE_SOURCE_DIR}/docs/user-guide.md
              ${CMAKE_SOURCE_DIR}/docs/exit-codes.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME fabscope)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "fabscope maintainers <maintainers@users.noreply.a-seed-d13b6f75.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "InfiniBand and RoCEv2 fabric diagnostics")
set(CPACK_PACKAGE_DESCRIPTION
    "fabscope finds what is wrong with an InfiniBand or RoCEv2 fabric, proves it with
measurements, and says where: which cable, which port, which host. One binary with
subcommands (discover, sweep, route, validate, diff, perf, mesh, tui, lab), exit
codes scripts can trust, and JSON with documented schemas.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # fabscope_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION net)    # with infiniband-diags, perftest, ibsim-utils
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Depends: what dpkg-shlibdeps finds the binary linked against (libibumad3,
# libibverbs1, libfmt9, ...): runtime packages only, never a -dev.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Without ibverbs-providers libibverbs sees no device; rdma-core loads the
# kernel modules and sets up the device nodes; infiniband-diags is the peer
# tooling the guide compares with. The lab needs the simulator and an SM.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "ibverbs-providers, rdma-core, infiniband-diags")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "ibsim-utils, opensm")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
