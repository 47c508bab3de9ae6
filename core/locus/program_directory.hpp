#pragma once
/// \file
/// The directory of the running program, where the launcher's plugins and its installed data
/// are found (plugin_loader.hpp, data_path.hpp).

#include <filesystem>

namespace locus {

/// The directory that stands for the running program's: the one set_program_directory gave,
/// else the directory of the executable (/proc/self/exe), else "" when it cannot be read.
std::filesystem::path program_directory();

/// Makes `dir` the program directory for this process: a host program that embeds locus (the
/// Python module, whose executable is the interpreter) names the directory of its `locus`
/// launcher, so that plugins and data are found as the launcher finds them. Call it before
/// anything is loaded.
void set_program_directory(std::filesystem::path dir);

} // namespace locus
