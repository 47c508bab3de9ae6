# Common compile settings and helpers for locus targets.

# Warnings for host code (and for host code compiled by nvcc).
function(locus_warnings target)
    set(host_flags -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion)
    if(LOCUS_WERROR)
        list(APPEND host_flags -Werror)
    endif()
    string(JOIN "," xflags ${host_flags})
    target_compile_options(${target} PRIVATE
        $<$<COMPILE_LANGUAGE:CXX>:${host_flags}>
        $<$<COMPILE_LANGUAGE:CUDA>:--Werror=all-warnings -Xcompiler=-Wall,-Wextra>)
    # NOTE: floating-point contraction is off on both sides so that host and device evaluate
    # expressions such as dx*dx+dy*dy identically (CPU/CUDA equivalence of distances).
    target_compile_options(${target} PRIVATE
        $<$<COMPILE_LANGUAGE:CXX>:-ffp-contract=off>
        $<$<COMPILE_LANGUAGE:CUDA>:--fmad=false -Xcompiler=-ffp-contract=off --expt-relaxed-constexpr>)
endfunction()

# locus_plugin(NAME SOURCES...): a run-time loaded plugin `locus_<NAME>.so` next to the launcher.
function(locus_plugin name)
    add_library(locus_${name} MODULE ${ARGN})
    set_target_properties(locus_${name} PROPERTIES PREFIX "" OUTPUT_NAME "locus_${name}"
        CUDA_SEPARABLE_COMPILATION OFF)
    target_link_libraries(locus_${name} PRIVATE locus::core locus::gpu)
    locus_warnings(locus_${name})
    add_dependencies(locus_plugins locus_${name})
endfunction()

if(NOT TARGET locus_plugins)
    add_custom_target(locus_plugins)
endif()
