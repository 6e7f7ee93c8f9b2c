// Whether the [gpu] tests can run here; `where` gets the device, or the reason there is none.
#pragma once
#include <string>

bool gpu_for_tests(std::string& where);
