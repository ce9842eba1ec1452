// The contract FS1–FS5 of StoreFileSystem.swift, checked with one body against every
// implementation: POSIX files in a temporary directory, in-memory, and fault-injecting with an
// empty plan.

import Dispatch
import Testing
@testable import CdStore

#if canImport(Glibc)
import Glibc
#endif

extension IOTests {
    @Suite struct StoreFileSystemContract {
        @Test(arguments: FileSystemKind.allCases)
        func writesAndReadsAtOffsets(kind: FileSystemKind) throws {
            let scratch = try Scratch(kind)
            let file = try scratch.fileSystem.open(scratch.path("a"), mode: .createIfMissing)
            defer { try? file.close() }
            try file.write(bytes("hello"), at: 0)
            try file.write(bytes("world"), at: 100)
            try file.write(bytes("J"), at: 0)
            #expect(try file.size() == 105)
            #expect(try read(file, 5, at: 0) == bytes("Jello"))
            #expect(try read(file, 5, at: 100) == bytes("world"))
            #expect(try read(file, 3, at: 101) == bytes("orl"))
        }

        @Test(arguments: FileSystemKind.allCases)
        func holeReadsAsZeros(kind: FileSystemKind) throws {
            let scratch = try Scratch(kind)
            let file = try scratch.fileSystem.open(scratch.path("a"), mode: .createIfMissing)
            defer { try? file.close() }
            try file.write(bytes("x"), at: 8191)
            #expect(try file.size() == 8192)
            #expect(try read(file, 8191, at: 0) == [UInt8](repeating: 0, count: 8191))
        }

        @Test(arguments: FileSystemKind.allCases)
        func readIsShortOnlyAtEndOfFile(kind: FileSystemKind) throws {
            let scratch = try Scratch(kind)
            let file = try scratch.fileSystem.open(scratch.path("a"), mode: .createIfMissing)
            defer { try? file.close() }
            try file.write(bytes("0123456789"), at: 0)
            #expect(try read(file, 20, at: 5) == bytes("56789"))
            #expect(try read(file, 4, at: 10) == [])
            #expect(try read(file, 4, at: 1_000_000) == [])
            #expect(try read(file, 0, at: 0) == [])
            #expect(
                throws: StoreError.corruption(
                    path: file.path, location: .offset(8),
                    detail: "file ends after 2 of 4 bytes at offset 8")
            ) {
                _ = try file.readExactly(4, at: 8, location: .offset(8))
            }
        }

        @Test(arguments: FileSystemKind.allCases)
        func truncateCutsAndExtendsWithZeros(kind: FileSystemKind) throws {
            let scratch = try Scratch(kind)
            let file = try scratch.fileSystem.open(scratch.path("a"), mode: .createIfMissing)
            defer { try? file.close() }
            try file.write(bytes("abcdefgh"), at: 0)
            try file.truncate(to: 3)
            #expect(try file.size() == 3)
            #expect(try readAll(file) == bytes("abc"))
            try file.truncate(to: 6)
            #expect(try readAll(file) == bytes("abc") + [0, 0, 0])
            try file.truncate(to: 0)
            #expect(try file.size() == 0)
        }

        @Test(arguments: FileSystemKind.allCases)
        func reopenSeesWrittenBytesAndRemoveDeletes(kind: FileSystemKind) throws {
            let scratch = try Scratch(kind)
            let fs = scratch.fileSystem
            let path = scratch.path("store")
            #expect(!fs.fileExists(path))
            let file = try fs.open(path, mode: .createIfMissing)
            try file.write(bytes("persist"), at: 0)
            try file.sync()
            try fs.syncDirectory(containing: path)
            try file.close()
            #expect(fs.fileExists(path))

            let again = try fs.open(path, mode: .createIfMissing)  // must not truncate
            #expect(try readAll(again) == bytes("persist"))
            try again.close()
            let readOnly = try fs.open(path, mode: .readOnly)
            #expect(try readAll(readOnly) == bytes("persist"))
            try readOnly.close()

            try fs.remove(path)
            try fs.syncDirectory(containing: path)
            #expect(!fs.fileExists(path))
            try fs.remove(path)  // removing a missing file is not an error
            #expect(throws: StoreError.io(operation: "open", path: path, errno: ENOENT)) {
                _ = try fs.open(path, mode: .readWrite)
            }
        }

        @Test(arguments: FileSystemKind.allCases)
        func openingMissingFileFailsWithENOENT(kind: FileSystemKind) throws {
            let scratch = try Scratch(kind)
            let path = scratch.path("missing")
            for mode in [FileOpenMode.readOnly, .readWrite] {
                #expect(throws: StoreError.io(operation: "open", path: path, errno: ENOENT)) {
                    _ = try scratch.fileSystem.open(path, mode: mode)
                }
            }
        }

        @Test(arguments: FileSystemKind.allCases)
        func unlinkedFileStaysUsableThroughOpenHandle(kind: FileSystemKind) throws {
            let scratch = try Scratch(kind)
            let path = scratch.path("a")
            let file = try scratch.fileSystem.open(path, mode: .createIfMissing)
            try file.write(bytes("still here"), at: 0)
            try scratch.fileSystem.remove(path)
            #expect(!scratch.fileSystem.fileExists(path))
            try file.write(bytes("S"), at: 0)
            #expect(try readAll(file) == bytes("Still here"))
            try file.close()
            let fresh = try scratch.fileSystem.open(path, mode: .createIfMissing)
            #expect(try fresh.size() == 0)
            try fresh.close()
        }

        @Test(arguments: FileSystemKind.allCases)
        func writeThroughReadOnlyHandleFailsWithEBADF(kind: FileSystemKind) throws {
            let scratch = try Scratch(kind)
            let path = scratch.path("a")
            try scratch.fileSystem.open(path, mode: .createIfMissing).close()
            let file = try scratch.fileSystem.open(path, mode: .readOnly)
            defer { try? file.close() }
            #expect(throws: StoreError.io(operation: "pwrite", path: path, errno: EBADF)) {
                try file.write(bytes("no"), at: 0)
            }
            #expect(throws: StoreError.self) { try file.truncate(to: 0) }
        }

        @Test(arguments: FileSystemKind.allCases)
        func closedHandleFailsWithEBADF(kind: FileSystemKind) throws {
            let scratch = try Scratch(kind)
            let path = scratch.path("a")
            let file = try scratch.fileSystem.open(path, mode: .createIfMissing)
            try file.close()
            #expect(throws: StoreError.io(operation: "pread", path: path, errno: EBADF)) {
                _ = try read(file, 1, at: 0)
            }
            #expect(throws: StoreError.io(operation: "pwrite", path: path, errno: EBADF)) {
                try file.write(bytes("x"), at: 0)
            }
            #expect(throws: StoreError.io(operation: "fdatasync", path: path, errno: EBADF)) { try file.sync() }
            #expect(throws: StoreError.io(operation: "fstat", path: path, errno: EBADF)) { _ = try file.size() }
            #expect(throws: StoreError.io(operation: "close", path: path, errno: EBADF)) { try file.close() }
        }

        @Test(arguments: FileSystemKind.allCases)
        func concurrentWritersAtDisjointOffsetsAllLand(kind: FileSystemKind) throws {
            let scratch = try Scratch(kind)
            let file = try scratch.fileSystem.open(scratch.path("a"), mode: .createIfMissing)
            defer { try? file.close() }
            let pages = 64, pageSize = 512
            DispatchQueue.concurrentPerform(iterations: pages) { page in
                let content = [UInt8](repeating: UInt8(page), count: pageSize)
                try? file.write(content, at: UInt64(page * pageSize))
                _ = try? read(file, pageSize, at: UInt64(((page + 1) % pages) * pageSize))
            }
            #expect(try file.size() == UInt64(pages * pageSize))
            for page in 0..<pages {
                #expect(
                    try read(file, pageSize, at: UInt64(page * pageSize))
                        == [UInt8](repeating: UInt8(page), count: pageSize))
            }
        }
    }

    /// FS4: advisory locks per handle, so two opens in one process conflict like two processes.
    @Suite struct StoreFileLocking {
        @Test(arguments: FileSystemKind.allCases)
        func secondExclusiveLockOnSamePathIsLocked(kind: FileSystemKind) throws {
            let scratch = try Scratch(kind)
            let path = scratch.path("store")
            let first = try scratch.fileSystem.open(path, mode: .createIfMissing)
            defer { try? first.close() }
            try first.lock(.exclusive)
            try first.lock(.exclusive)  // taking the lock it holds again is fine
            let second = try scratch.fileSystem.open(path, mode: .readWrite)
            defer { try? second.close() }
            #expect(throws: StoreError.locked(path: path)) { try second.lock(.exclusive) }
        }

        @Test(arguments: FileSystemKind.allCases)
        func sharedLocksCoexist(kind: FileSystemKind) throws {
            let scratch = try Scratch(kind)
            let path = scratch.path("store")
            try scratch.fileSystem.open(path, mode: .createIfMissing).close()
            let readers = try (0..<3).map { _ in try scratch.fileSystem.open(path, mode: .readOnly) }
            for reader in readers { try reader.lock(.shared) }
            for reader in readers { try reader.close() }
        }

        @Test(arguments: FileSystemKind.allCases)
        func sharedAndExclusiveConflict(kind: FileSystemKind) throws {
            let scratch = try Scratch(kind)
            let path = scratch.path("store")
            let writer = try scratch.fileSystem.open(path, mode: .createIfMissing)
            let reader = try scratch.fileSystem.open(path, mode: .readOnly)
            defer { try? writer.close(); try? reader.close() }

            try reader.lock(.shared)
            #expect(throws: StoreError.locked(path: path)) { try writer.lock(.exclusive) }
            try reader.close()
            try writer.lock(.exclusive)
            let late = try scratch.fileSystem.open(path, mode: .readOnly)
            defer { try? late.close() }
            #expect(throws: StoreError.locked(path: path)) { try late.lock(.shared) }
        }

        @Test(arguments: FileSystemKind.allCases)
        func failedConversionToExclusiveDropsTheSharedLock(kind: FileSystemKind) throws {
            // Linux flock converts by unlocking first; all implementations behave the same.
            let scratch = try Scratch(kind)
            let path = scratch.path("store")
            try scratch.fileSystem.open(path, mode: .createIfMissing).close()
            let first = try scratch.fileSystem.open(path, mode: .readOnly)
            let second = try scratch.fileSystem.open(path, mode: .readOnly)
            let third = try scratch.fileSystem.open(path, mode: .readWrite)
            defer { try? first.close(); try? third.close() }
            try first.lock(.shared)
            try second.lock(.shared)
            #expect(throws: StoreError.locked(path: path)) { try first.lock(.exclusive) }
            try second.close()
            try third.lock(.exclusive)  // `first` no longer holds anything
        }

        @Test(arguments: FileSystemKind.allCases)
        func closeReleasesTheLock(kind: FileSystemKind) throws {
            let scratch = try Scratch(kind)
            let path = scratch.path("store")
            let first = try scratch.fileSystem.open(path, mode: .createIfMissing)
            try first.lock(.exclusive)
            try first.close()
            let second = try scratch.fileSystem.open(path, mode: .readWrite)
            try second.lock(.exclusive)
            try second.close()
        }
    }
}
