# Common compile settings and helpers for locus targets.

# Warnings for host code (and for host code compiled by nvcc).
function(locus_warnings target)
    # NOTE: -Wno-restrict silences GCC 12's false positive in std::string at -O3 (GCC PR 105329).
    set(host_flags -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion -Wno-restrict)
    set(cuda_flags -Xcompiler=-Wall,-Wextra)
    if(LOCUS_WERROR)
        list(APPEND host_flags -Werror)
        list(APPEND cuda_flags --Werror=all-warnings)
    endif()
    target_compile_options(${target} PRIVATE
        $<$<COMPILE_LANGUAGE:CXX>:${host_flags}>
        $<$<COMPILE_LANGUAGE:CUDA>:${cuda_flags}>)
    # NOTE: floating-point contraction is off on both sides so that host and device evaluate
    # expressions such as dx*dx+dy*dy identically (CPU/CUDA equivalence of distances).
    target_compile_options(${target} PRIVATE
        $<$<COMPILE_LANGUAGE:CXX>:-ffp-contract=off>
        $<$<COMPILE_LANGUAGE:CUDA>:--fmad=false -Xcompiler=-ffp-contract=off --expt-relaxed-constexpr>)
endfunction()

if(NOT TARGET locus_plugins)
    add_custom_target(locus_plugins)
endif()
include(LocusPlugin)
include(LocusProblem)

# add_subdirectory for every child folder of the current source directory that has a
# CMakeLists.txt (problems/, plugins/ and tests/ are extended by adding a folder).
function(locus_add_child_directories)
    file(GLOB children RELATIVE ${CMAKE_CURRENT_SOURCE_DIR} CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*)
    list(SORT children)
    foreach(child ${children})
        if(IS_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/${child} AND EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${child}/CMakeLists.txt)
            add_subdirectory(${child})
        endif()
    endforeach()
endfunction()
