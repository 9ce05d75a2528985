#include <iostream>

#include "greeting.hpp"

int main() {
    for (int i = 0; i < demo::repeat_count(); ++i) {
        std::cout << demo::greeting("editwarden") << std::endl;
    }
    return 0;
}
