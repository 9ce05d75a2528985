#include "greeting.hpp"

namespace demo {

std::string greeting(const std::string& name) {
    return "Hello, " + name + "!";
}

int repeat_count() {
    return 1;
}

}  // namespace demo
