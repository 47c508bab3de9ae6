# locus_plugin(NAME <name> SOURCES <file>...): a run-time loaded plugin `locus_<name>.so`.
#
# The same function builds the plugins of this source tree and, installed with locus
# (find_package(locus)), plugins outside it: a MODULE library linked with locus::core and
# locus::gpu (whose interfaces carry the floating-point flags that keep host and device results
# equal), without CUDA separable compilation, installed into the plugin folder that the
# installed launcher searches (<libdir>/locus/plugins). Out of the tree, the CUDA architectures
# default to those locus was built for (the tuning of its device toolkit is chosen for the
# first of them).
function(locus_plugin)
    cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME" "SOURCES")
    if(NOT arg_NAME OR NOT arg_SOURCES OR arg_UNPARSED_ARGUMENTS)
        message(FATAL_ERROR "usage: locus_plugin(NAME <name> SOURCES <file>...)")
    endif()
    set(target locus_${arg_NAME})
    add_library(${target} MODULE ${arg_SOURCES})
    set_target_properties(${target} PROPERTIES PREFIX "" OUTPUT_NAME ${target}
        CUDA_SEPARABLE_COMPILATION OFF)
    target_link_libraries(${target} PRIVATE locus::core locus::gpu)
    if(COMMAND locus_warnings)
        locus_warnings(${target})
    endif()
    if(TARGET locus_plugins)
        add_dependencies(locus_plugins ${target})
    endif()
    if(DEFINED locus_CUDA_ARCHITECTURES)
        set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES "${locus_CUDA_ARCHITECTURES}")
    endif()
    if(DEFINED LOCUS_INSTALL_PLUGINDIR)
        set_target_properties(${target} PROPERTIES INSTALL_RPATH "${LOCUS_PLUGIN_RPATH}")
        install(TARGETS ${target} LIBRARY DESTINATION ${LOCUS_INSTALL_PLUGINDIR})
    endif()
endfunction()

# locus_plugin_test(NAME <name> SOURCES <file>...): a test executable of a plugin outside the
# source tree, registered with CTest (call enable_testing() first). It compiles the given files
# (the test and the plugin sources it exercises) like locus_plugin does, links locus::core and
# locus::gpu, and doctest::doctest when the project found doctest (find_package(doctest)); the
# checks of <locus/testing/...> (installed with locus) need only locus itself.
function(locus_plugin_test)
    cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME" "SOURCES")
    if(NOT arg_NAME OR NOT arg_SOURCES OR arg_UNPARSED_ARGUMENTS)
        message(FATAL_ERROR "usage: locus_plugin_test(NAME <name> SOURCES <file>...)")
    endif()
    add_executable(${arg_NAME} ${arg_SOURCES})
    set_target_properties(${arg_NAME} PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)
    target_link_libraries(${arg_NAME} PRIVATE locus::core locus::gpu)
    if(TARGET doctest::doctest)
        target_link_libraries(${arg_NAME} PRIVATE doctest::doctest)
    endif()
    if(DEFINED locus_CUDA_ARCHITECTURES)
        set_target_properties(${arg_NAME} PROPERTIES
            CUDA_ARCHITECTURES "${locus_CUDA_ARCHITECTURES}")
    endif()
    add_test(NAME ${arg_NAME} COMMAND ${arg_NAME})
endfunction()
