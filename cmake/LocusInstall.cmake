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
