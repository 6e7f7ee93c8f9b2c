#include <sys/wait.h>
#include <unistd.h>
#include "../common/cuda_support.cuh"
#include "gpu_probe.h"

// The probe runs in a child process. Once started in a process, the CUDA driver holds about
// 90 MB there, and each program that a test then forks would start with it and count it in its
// peak memory; a test that runs no kernel itself never starts the driver.
bool gpu_for_tests(std::string& where) {
    int channel[2];
    if (pipe(channel) != 0) {
        where = "the GPU probe could not make a pipe";
        return false;
    }
    const pid_t pid = fork();
    if (pid == 0) {
        close(channel[0]);
        const Backend b = detect_backend();
        const std::string answer = (b.gpu ? "1" : "0") +
                                   (b.gpu ? b.device_name + " (sm_" + std::to_string(b.sm) + ")"
                                          : b.reason);
        const ssize_t written = write(channel[1], answer.data(), answer.size());
        _exit(written == static_cast<ssize_t>(answer.size()) ? 0 : 1);
    }
    close(channel[1]);
    std::string answer;
    char buffer[512];
    for (ssize_t got; pid > 0 && (got = read(channel[0], buffer, sizeof buffer)) > 0;)
        answer.append(buffer, static_cast<size_t>(got));
    close(channel[0]);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0 || answer.empty()) {
        where = "the GPU probe's process failed";
        return false;
    }
    where = answer.substr(1);
    return answer[0] == '1';
}
