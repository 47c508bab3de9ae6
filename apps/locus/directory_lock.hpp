#pragma once
/// \file
/// The lock an experiment holds on its directory while it writes into it.

#include <fcntl.h>
#include <sys/types.h>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

namespace locus::app {

/// The lock of an experiment's directory, held while the experiment writes into it: POSIX
/// record locks (fcntl) on bytes of DIR/.lock, which the kernel releases however the process
/// ends and which NFS carries between the nodes of a cluster. Two experiments conflict when they
/// may run the same runs (one would delete the other's .partial directories); the shards i/N of
/// one N run disjoint runs and share the directory. So an experiment of shards of N (the whole
/// experiment is shard 1/1):
///  - holds a read lock on byte N, and finds no lock on another byte of [1, kShardByte): no
///    experiment of shards of another N writes into DIR;
///  - holds a write lock on byte kShardByte + i: no other experiment runs shard i/N.
/// The holder's pid comes from the kernel (F_GETLK). Two experiments of different N starting
/// together may both be refused (each sees the other's read lock), never both let in. Where
/// the file system has no locks, a warning says so and the experiment runs unlocked.
class DirectoryLock {
public:
    /// Locks `out` (DIR) for shard `shard` of `shards`. Error naming the holder when another
    /// experiment writes into DIR with another N or runs the same shard.
    DirectoryLock(const std::filesystem::path& out, std::size_t shard, std::size_t shards);
    ~DirectoryLock();
    DirectoryLock(const DirectoryLock&) = delete;
    DirectoryLock& operator=(const DirectoryLock&) = delete;

private:
    /// Where the bytes of the shard numbers begin; [1, kShardByte) are the shard counts.
    static constexpr off_t kShardByte = off_t{1} << 40;

    /// Takes a lock of `type` on byte `at`; false when another process holds a conflicting one
    /// (`busy_ok`), or, after a warning, when the file system has no locks. Other failures throw.
    bool set(short type, off_t at, bool busy_ok = false);
    /// The warning of an experiment that runs without the lock, `why` being the reason.
    void unlocked(const char* why) const;
    /// A lock another process holds on [at, at + length) that a write lock would conflict
    /// with, if any.
    std::optional<struct flock> holder(off_t at, off_t length) const;
    /// "another experiment is writing to 'DIR' (pid N)"; a lock held from another host (NFS)
    /// has no pid of this one.
    std::string refusal(pid_t pid) const;

    std::filesystem::path out_;
    int fd_ = -1;
};

} // namespace locus::app
