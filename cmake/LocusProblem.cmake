# locus_problem(NAME <name> [SOURCES <file>...] [LIBS <target>...]
#               [BENCH <file>... [BENCH_NAME <target>] [BENCH_LIBS <target>...]])
#
# A problem of this source tree (problems/<name>), in the shape every problem has:
# - the static library locus_<name>_lib of src/*.cpp and src/*.cu (globbed, so a new source
#   file needs no edit) plus SOURCES (generated files), with include/ as its public include
#   folder, linked publicly with locus::core, locus::gpu, locus::formats and LIBS, and the
#   project's warnings; the plugin module and the tests link it;
# - the plugin module locus_<name> (locus_plugin) of plugin/<name>_plugin.cpp, linked with the
#   library;
# - with BENCH, a benchmark executable of those files (BENCH_NAME, by default
#   locus-<name>-bench) linked with the library and BENCH_LIBS.
# Properties of single files (set_source_files_properties) are set by the caller afterwards.
function(locus_problem)
    cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;BENCH_NAME" "SOURCES;LIBS;BENCH;BENCH_LIBS")
    if(NOT arg_NAME OR arg_UNPARSED_ARGUMENTS OR ((arg_BENCH_NAME OR arg_BENCH_LIBS) AND NOT arg_BENCH))
        message(FATAL_ERROR "usage: locus_problem(NAME <name> [SOURCES <file>...] "
            "[LIBS <target>...] [BENCH <file>... [BENCH_NAME <target>] [BENCH_LIBS <target>...]])")
    endif()
    set(dir ${CMAKE_CURRENT_SOURCE_DIR})
    file(GLOB sources CONFIGURE_DEPENDS ${dir}/src/*.cpp ${dir}/src/*.cu)
    set(lib locus_${arg_NAME}_lib)
    add_library(${lib} STATIC ${sources} ${arg_SOURCES})
    target_include_directories(${lib} PUBLIC ${dir}/include)
    target_link_libraries(${lib} PUBLIC locus::core locus::gpu locus::formats ${arg_LIBS})
    locus_warnings(${lib})

    locus_plugin(NAME ${arg_NAME} SOURCES ${dir}/plugin/${arg_NAME}_plugin.cpp)
    target_link_libraries(locus_${arg_NAME} PRIVATE ${lib})

    if(arg_BENCH)
        set(bench locus-${arg_NAME}-bench)
        if(arg_BENCH_NAME)
            set(bench ${arg_BENCH_NAME})
        endif()
        add_executable(${bench} ${arg_BENCH})
        target_link_libraries(${bench} PRIVATE ${lib} ${arg_BENCH_LIBS})
        locus_warnings(${bench})
    endif()
endfunction()
