// A shared region over a real file: `mmap(MAP_SHARED)` for the memory, `fcntl` open-file-description
// locks (F_OFD_SETLK, F_OFD_SETLKW, F_OFD_GETLK) for the locks. Classic POSIX record locks would be
// dropped when any descriptor of the file closes in the process; OFD locks belong to this one
// descriptor (SR2), and the kernel drops them when the process dies.
//
// Lock byte `i` is the file offset `lockBase + i`, far past the mapped bytes (SR3).

import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A `SharedRegion` of a real file (SR1–SR3).
package final class POSIXSharedRegion: SharedRegion, @unchecked Sendable {
    package let path: String
    package let base: UnsafeMutableRawPointer
    package let size: Int
    private let descriptor: Int32
    private let closed = LockedState(false)

    /// Where lock byte 0 lies in the file (never mapped, never written: SR3).
    static let lockBase: Int64 = 1 << 30

    #if os(Linux)
    private static let getLock: Int32 = 36  // F_OFD_GETLK
    private static let setLock: Int32 = 37  // F_OFD_SETLK
    private static let setLockWait: Int32 = 38  // F_OFD_SETLKW
    #else
    private static let getLock = F_GETLK
    private static let setLock = F_SETLK
    private static let setLockWait = F_SETLKW
    #endif

    init(path: String, size: Int) throws {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StoreError.io(operation: "open", path: path, errno: errno) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let e = errno
            _ = Glibc.close(fd)
            throw StoreError.io(operation: "fstat", path: path, errno: e)
        }
        if Int(info.st_size) < size {
            // Only ever grown: another process may have it mapped already.
            guard ftruncate(fd, off_t(size)) == 0 else {
                let e = errno
                _ = Glibc.close(fd)
                throw StoreError.io(operation: "ftruncate", path: path, errno: e)
            }
        }
        let mapped = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
        guard let mapped, mapped != UnsafeMutableRawPointer(bitPattern: -1) else {
            let e = errno
            _ = Glibc.close(fd)
            throw StoreError.io(operation: "mmap", path: path, errno: e)
        }
        self.path = path
        self.base = mapped
        self.size = size
        self.descriptor = fd
    }

    deinit { close() }

    package func lock(_ index: Int, exclusive: Bool, wait: Bool) throws -> Bool {
        var request = Self.request(index, type: exclusive ? F_WRLCK : F_RDLCK)
        while true {
            if fcntl(descriptor, wait ? Self.setLockWait : Self.setLock, &request) == 0 { return true }
            let e = errno
            if e == EINTR { continue }
            if !wait && (e == EAGAIN || e == EACCES) { return false }
            throw StoreError.io(operation: "fcntl", path: path, errno: e)
        }
    }

    package func unlock(_ index: Int) throws {
        var request = Self.request(index, type: F_UNLCK)
        while fcntl(descriptor, Self.setLock, &request) != 0 {
            let e = errno
            if e != EINTR { throw StoreError.io(operation: "fcntl", path: path, errno: e) }
        }
    }

    package func isLockedByOther(_ index: Int) throws -> Bool {
        var request = Self.request(index, type: F_WRLCK)
        while fcntl(descriptor, Self.getLock, &request) != 0 {
            let e = errno
            if e != EINTR { throw StoreError.io(operation: "fcntl", path: path, errno: e) }
        }
        return request.l_type != Int16(F_UNLCK)
    }

    package func close() {
        let first = closed.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        munmap(base, size)
        _ = Glibc.close(descriptor)
    }

    private static func request(_ index: Int, type: Int32) -> Glibc.flock {
        var request = Glibc.flock()
        request.l_type = Int16(type)
        request.l_whence = Int16(SEEK_SET)
        request.l_start = off_t(lockBase + Int64(index))
        request.l_len = 1
        request.l_pid = 0  // OFD requests must pass 0
        return request
    }
}

extension POSIXFileSystem: SharedRegionProvider {
    package func openSharedRegion(_ path: String, size: Int) throws -> any SharedRegion {
        try POSIXSharedRegion(path: path, size: size)
    }
}
