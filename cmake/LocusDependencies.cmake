# Third-party dependencies, all from the distribution's packages (Debian 12 / Ubuntu 24.04).
find_package(CUDAToolkit REQUIRED)
find_package(Threads REQUIRED)
find_package(OpenMP REQUIRED COMPONENTS CXX)
find_package(Boost 1.74 REQUIRED CONFIG)           # header-only parts: Boost.DLL
find_package(yaml-cpp REQUIRED)
find_package(fmt REQUIRED)
find_package(CLI11 REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
if(LOCUS_BUILD_TESTS)
    find_package(doctest REQUIRED)
endif()

# yaml-cpp 0.7 exports `yaml-cpp`, 0.8 exports `yaml-cpp::yaml-cpp`.
if(TARGET yaml-cpp::yaml-cpp)
    set(LOCUS_YAML_TARGET yaml-cpp::yaml-cpp)
else()
    set(LOCUS_YAML_TARGET yaml-cpp)
endif()
