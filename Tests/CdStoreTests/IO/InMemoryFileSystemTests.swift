// What is particular to the in-memory file system: seeding it with files, inspecting it, and its
// size limit (MV4 of InMemoryVolume.swift).

import Testing
@testable import CdStore

#if canImport(Glibc)
import Glibc
#endif

extension IOTests {
    @Suite struct InMemoryFileSystemSpecifics {
        @Test func startsWithGivenFilesAndShowsThem() throws {
            let fs = InMemoryFileSystem(files: ["b": bytes("bee"), "a": []])
            #expect(fs.paths == ["a", "b"])
            let file = try fs.open("b", mode: .readWrite)
            try file.write(bytes("B"), at: 0)
            #expect(fs.contents(of: "b") == bytes("Bee"))
            #expect(fs.contents(of: "c") == nil)
            try file.close()
        }

        @Test func offsetsBeyondTheSizeLimitFailWithEFBIG() throws {
            let fs = InMemoryFileSystem()
            let file = try fs.open("big", mode: .createIfMissing)
            defer { try? file.close() }
            #expect(throws: StoreError.io(operation: "pwrite", path: "big", errno: EFBIG)) {
                try file.write(bytes("x"), at: InMemoryVolume.maximumFileSize)
            }
            #expect(throws: StoreError.io(operation: "ftruncate", path: "big", errno: EFBIG)) {
                try file.truncate(to: UInt64.max)
            }
            #expect(try file.size() == 0)
        }

        @Test func droppedHandleReleasesItsLock() throws {
            let fs = InMemoryFileSystem()
            do {
                let holder = try fs.open("store", mode: .createIfMissing)
                try holder.lock(.exclusive)
            }
            let next = try fs.open("store", mode: .readWrite)
            try next.lock(.exclusive)
            try next.close()
        }
    }
}
