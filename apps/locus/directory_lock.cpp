// The lock of an experiment's directory (see directory_lock.hpp).

#include "directory_lock.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "launcher.hpp"
#include "locus/error.hpp"

namespace locus::app {

namespace fs = std::filesystem;

DirectoryLock::DirectoryLock(const fs::path& out, std::size_t shard, std::size_t shards)
    : out_(out) {
    const fs::path file = out / ".lock";
    fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    // NOTE: a directory this process cannot write into has no writer to keep out (a
    // finished experiment kept read-only is still checked: nothing left to run).
    if (fd_ < 0 && (errno == EACCES || errno == EROFS)) {
        unlocked(std::strerror(errno));
        return;
    }
    if (fd_ < 0)
        throw Error(fmt::format("cannot create '{}': {}", file.string(), std::strerror(errno)));
    const auto n = static_cast<off_t>(shards);
    if (!set(F_RDLCK, n)) return;
    // Another N: a read lock on another byte of the counts (this process's own are not
    // reported).
    for (const auto& [from, to] : {std::pair<off_t, off_t>{1, n}, {n + 1, kShardByte}}) {
        if (from >= to) continue;
        const std::optional<struct flock> other = holder(from, to - from);
        if (other)
            throw Error(fmt::format("{}, {}; only the shards i/N of one N write into one "
                                    "directory together",
                                    refusal(other->l_pid),
                                    other->l_start == 1
                                        ? std::string("without --shard")
                                        : fmt::format("with --shard i/{}", other->l_start)));
    }
    // The same shard of the same N: the same runs.
    const off_t mine = kShardByte + static_cast<off_t>(shard);
    for (int attempt = 0; attempt < 100; ++attempt) {
        if (set(F_WRLCK, mine, true) || fd_ < 0) return;
        if (const std::optional<struct flock> other = holder(mine, 1))
            throw Error(refusal(other->l_pid));
        // NOTE: the holder ended between the two calls: once more.
    }
    throw Error(
        fmt::format("cannot lock '{}': its holders keep changing", (out_ / ".lock").string()));
}

DirectoryLock::~DirectoryLock() {
    if (fd_ >= 0) ::close(fd_); // releases the locks
}

bool DirectoryLock::set(short type, off_t at, bool busy_ok) {
    struct flock lock {};
    lock.l_type = type;
    lock.l_whence = SEEK_SET;
    lock.l_start = at;
    lock.l_len = 1;
    while (::fcntl(fd_, F_SETLK, &lock) != 0) {
        if (errno == EINTR) continue;
        if (busy_ok && (errno == EAGAIN || errno == EACCES)) return false;
        if (errno == ENOLCK || errno == ENOSYS || errno == EOPNOTSUPP || errno == EINVAL) {
            unlocked(std::strerror(errno));
            ::close(fd_);
            fd_ = -1;
            return false;
        }
        throw Error(
            fmt::format("cannot lock '{}': {}", (out_ / ".lock").string(), std::strerror(errno)));
    }
    return true;
}

void DirectoryLock::unlocked(const char* why) const {
    put_line(stderr, fmt::format("locus: warning: cannot lock '{}' ({}): another experiment "
                                 "writing into '{}' at the same time would not be noticed",
                                 (out_ / ".lock").string(), why, out_.string()));
}

std::optional<struct flock> DirectoryLock::holder(off_t at, off_t length) const {
    struct flock lock {};
    lock.l_type = F_WRLCK;
    lock.l_whence = SEEK_SET;
    lock.l_start = at;
    lock.l_len = length;
    if (::fcntl(fd_, F_GETLK, &lock) != 0 || lock.l_type == F_UNLCK) return std::nullopt;
    return lock;
}

std::string DirectoryLock::refusal(pid_t pid) const {
    return fmt::format("another experiment is writing to '{}' ({})", out_.string(),
                       pid > 0 ? fmt::format("pid {}", pid) : std::string("on another host"));
}

} // namespace locus::app
