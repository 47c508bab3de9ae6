# Install rules and the CMake package of locus: `cmake --install <build> --prefix <dir>` gives a
# tree that an out-of-tree plugin builds against with find_package(locus) and locus_plugin().
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
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/examples/ DESTINATION ${CMAKE_INSTALL_DATADIR}/locus/examples)

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
    PATH_VARS CMAKE_INSTALL_LIBDIR LOCUS_INSTALL_PLUGINDIR)
# NOTE: plugins must come from the same build as the launcher (the loader compares build ids),
# so only this exact version is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/locusConfigVersion.cmake
    COMPATIBILITY ExactVersion)
install(FILES ${PROJECT_BINARY_DIR}/locusConfig.cmake ${PROJECT_BINARY_DIR}/locusConfigVersion.cmake
    ${PROJECT_SOURCE_DIR}/cmake/LocusPlugin.cmake DESTINATION ${LOCUS_INSTALL_CMAKEDIR})
