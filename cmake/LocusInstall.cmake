# Install rules and the CMake package of locus: `cmake --install <build> --prefix <dir>` gives a
# tree that an out-of-tree plugin builds against with find_package(locus) and locus_plugin(),
# and tests with locus_plugin_test() and the checks of include/locus/testing.
include(CMakePackageConfigHelpers)

install(TARGETS locus_core locus_gpu EXPORT locusTargets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/core/locus/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/locus
    FILES_MATCHING PATTERN "*.hpp")
install(FILES ${PROJECT_BINARY_DIR}/core/generated/locus/build_info.hpp
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/locus)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/gpu/locus/gpu/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/locus/gpu
    FILES_MATCHING PATTERN "*.hpp" PATTERN "*.cuh")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/configs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/locus/configs)
# The benchmark data the configs name: the data path of an installed launcher ends with it.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/data/ DESTINATION ${CMAKE_INSTALL_DATADIR}/locus/data)
set(LOCUS_INSTALL_EXAMPLESDIR ${CMAKE_INSTALL_DATADIR}/locus/examples)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/examples/ DESTINATION ${LOCUS_INSTALL_EXAMPLESDIR})
# What a plugin's tests need (include/locus/testing): the neighborhood checks (check_every_move,
# check_descent under check_moves, same_descent) and the doctest harnesses of chain-engine
# policies and of CPU-vs-CUDA engines that the suites of this tree use.
install(FILES ${PROJECT_SOURCE_DIR}/tests/sdk/include/locus/testing/neighborhood_checks.hpp
    ${PROJECT_SOURCE_DIR}/tests/support/chain_policy_harness.hpp
    ${PROJECT_SOURCE_DIR}/tests/support/chain_policy_harness.cuh
    ${PROJECT_SOURCE_DIR}/tests/support/engine_checks.hpp
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/locus/testing)
# The documentation (share/doc/locus) and the plot script of `locus report`
# (share/locus/plots/locus_plots.py, where the installed launcher looks for it).
file(GLOB LOCUS_DOCS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/*.md)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${LOCUS_DOCS} DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${PROJECT_SOURCE_DIR}/scripts/plots/locus_plots.py
    DESTINATION ${CMAKE_INSTALL_DATADIR}/locus/plots
    PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)

# A Debian package of the installed tree: `cpack -G DEB --config <build>/CPackConfig.cmake`.
set(CPACK_PACKAGE_NAME locus)
set(CPACK_PACKAGE_VENDOR "locus")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "GPU-accelerated local search and successor generation")
set(CPACK_PACKAGE_CONTACT "locus maintainers")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "locus maintainers")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# NOTE: the CUDA toolkit is not a Debian dependency (NVIDIA ships it outside the archive); the
# launcher needs its runtime library at run time.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libfmt9, libyaml-cpp0.7 | libyaml-cpp0.8, libgomp1")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_GENERATOR DEB)
include(CPack)

install(EXPORT locusTargets NAMESPACE locus:: DESTINATION ${LOCUS_INSTALL_CMAKEDIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/locusConfig.cmake.in
    ${PROJECT_BINARY_DIR}/locusConfig.cmake INSTALL_DESTINATION ${LOCUS_INSTALL_CMAKEDIR}
    PATH_VARS CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_DOCDIR LOCUS_INSTALL_PLUGINDIR
    LOCUS_INSTALL_EXAMPLESDIR)
# NOTE: plugins must come from the same build as the launcher (the loader compares build ids),
# so only this exact version is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/locusConfigVersion.cmake
    COMPATIBILITY ExactVersion)
install(FILES ${PROJECT_BINARY_DIR}/locusConfig.cmake ${PROJECT_BINARY_DIR}/locusConfigVersion.cmake
    ${PROJECT_SOURCE_DIR}/cmake/LocusPlugin.cmake DESTINATION ${LOCUS_INSTALL_CMAKEDIR})
