// The shared region of `InMemoryFileSystem`: the memory of a path is one block that every handle
// opened on the path sees (two stores on one in-memory file system are two "processes"), and the
// locks are a table of which handle holds what. Closing a handle — a process ending, or a test
// simulating its death by dropping it — releases its locks and leaves the memory as it was.
//
// Keeps SR1–SR3 of SharedRegion.swift: the memory is one allocation per path, locks are held per
// handle id in a table apart from it, and only `close` of a handle removes that handle's locks.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The memory and lock table of one in-memory shared file.
final class InMemorySharedBlock: @unchecked Sendable {
    let base: UnsafeMutableRawPointer
    let size: Int
    /// Lock byte → (handle → exclusive?).
    let locks = LockedState<[Int: [Int: Bool]]>([:])

    init(size: Int) {
        base = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 64)
        base.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        self.size = size
    }

    deinit { base.deallocate() }
}

/// One handle on an in-memory shared file (SR1–SR3).
package final class InMemorySharedRegion: SharedRegion, @unchecked Sendable {
    package let path: String
    private let block: InMemorySharedBlock
    private let handle: Int
    package var base: UnsafeMutableRawPointer { block.base }
    package var size: Int { block.size }

    init(path: String, block: InMemorySharedBlock, handle: Int) {
        self.path = path
        self.block = block
        self.handle = handle
    }

    deinit { close() }

    package func lock(_ index: Int, exclusive: Bool, wait: Bool) throws -> Bool {
        while true {
            let taken = block.locks.withLock { table -> Bool in
                let others = (table[index] ?? [:]).filter { $0.key != handle }
                guard others.isEmpty || (!exclusive && !others.values.contains(true)) else { return false }
                table[index, default: [:]][handle] = exclusive
                return true
            }
            if taken || !wait { return taken }
            usleep(200)
        }
    }

    package func unlock(_ index: Int) throws {
        block.locks.withLock { table in
            table[index]?[handle] = nil
            if table[index]?.isEmpty == true { table[index] = nil }
        }
    }

    package func isLockedByOther(_ index: Int) throws -> Bool {
        block.locks.withLock { table in (table[index] ?? [:]).keys.contains { $0 != handle } }
    }

    package func close() {
        block.locks.withLock { table in
            for key in Array(table.keys) {
                table[key]?[handle] = nil
                if table[key]?.isEmpty == true { table[key] = nil }
            }
        }
    }
}

extension InMemoryFileSystem: SharedRegionProvider {
    package func openSharedRegion(_ path: String, size: Int) throws -> any SharedRegion {
        sharedBlocks.withLock { state in
            let block: InMemorySharedBlock
            if let existing = state.blocks[path], existing.size >= size {
                block = existing
            } else {
                block = InMemorySharedBlock(size: size)
                state.blocks[path] = block
            }
            state.nextHandle += 1
            return InMemorySharedRegion(path: path, block: block, handle: state.nextHandle)
        }
    }

    /// The shared memory of `path` (for tests that write hostile values into it), if opened once.
    package func sharedMemory(of path: String) -> UnsafeMutableRawBufferPointer? {
        sharedBlocks.withLock { state in
            state.blocks[path].map { UnsafeMutableRawBufferPointer(start: $0.base, count: $0.size) }
        }
    }
}

/// The shared files of an `InMemoryFileSystem` (kept apart from its ordinary files).
struct InMemorySharedBlocks {
    var blocks: [String: InMemorySharedBlock] = [:]
    var nextHandle = 0
}
