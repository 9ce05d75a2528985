#pragma once

#include <string>

namespace demo {

// Builds the greeting printed by the program.
std::string greeting(const std::string& name);

// How many times the greeting is printed.
int repeat_count();

}  // namespace demo
