// The fault-injecting file system: injected errors (once and persistent), short writes, crashes,
// the operation log, and power loss with its seeded damage modes.

import Dispatch
import Testing
@testable import CdStore
import CdStoreTesting

#if canImport(Glibc)
import Glibc
#endif

extension IOTests {
    @Suite struct FaultInjection {
        /// open (#1), write (#2), write (#3), sync (#4), read (#5).
        private func workload(_ fs: FaultInjectingFileSystem) throws {
            let file = try fs.open("db", mode: .createIfMissing)
            try file.write(bytes("aaaa"), at: 0)
            try file.write(bytes("bbbb"), at: 4)
            try file.sync()
            _ = try read(file, 8, at: 0)
        }

        @Test(arguments: [EIO, ENOSPC])
        func failingOperationOnceThenRecovering(code: Int32) throws {
            let fs = FaultInjectingFileSystem(plan: .fail(operation: 3, errno: code))
            let file = try fs.open("db", mode: .createIfMissing)
            try file.write(bytes("aaaa"), at: 0)
            #expect(throws: StoreError.io(operation: "pwrite", path: "db", errno: code)) {
                try file.write(bytes("bbbb"), at: 4)
            }
            #expect(fs.contents(of: "db") == bytes("aaaa"))  // the failed write did nothing
            try file.write(bytes("bbbb"), at: 4)  // #4 succeeds
            #expect(fs.contents(of: "db") == bytes("aaaabbbb"))
            #expect(fs.operationLog.map(\.outcome) == [.completed, .completed, .failed(errno: code), .completed])
        }

        @Test func persistentFailureFailsEveryLaterOperation() throws {
            let fs = FaultInjectingFileSystem(plan: .fail(operation: 2, errno: ENOSPC, persistent: true))
            let file = try fs.open("db", mode: .createIfMissing)
            #expect(throws: StoreError.io(operation: "pwrite", path: "db", errno: ENOSPC)) {
                try file.write(bytes("a"), at: 0)
            }
            #expect(throws: StoreError.io(operation: "fdatasync", path: "db", errno: ENOSPC)) { try file.sync() }
            #expect(throws: StoreError.io(operation: "pread", path: "db", errno: ENOSPC)) {
                _ = try read(file, 1, at: 0)
            }
            #expect(throws: StoreError.io(operation: "open", path: "other", errno: ENOSPC)) {
                _ = try fs.open("other", mode: .createIfMissing)
            }
            #expect(!fs.fileExists("other"))
            #expect(fs.operationCount == 5)
        }

        @Test func failingTheNthSyncOfOnePath() throws {
            let fs = FaultInjectingFileSystem(plan: .fail(.sync, occurrence: 2, path: "wal"))
            let store = try fs.open("db", mode: .createIfMissing)
            let wal = try fs.open("wal", mode: .createIfMissing)
            try store.sync()  // syncs of other paths do not count
            try wal.sync()
            try store.sync()
            #expect(throws: StoreError.io(operation: "fdatasync", path: "wal", errno: EIO)) { try wal.sync() }
            try wal.sync()
        }

        @Test func failingEveryWriteLeavesReadsWorking() throws {
            let fs = FaultInjectingFileSystem(files: ["db": bytes("old")], plan: .failEvery(.write))
            let file = try fs.open("db", mode: .readWrite)
            for offset in [0, 10] as [UInt64] {
                #expect(throws: StoreError.io(operation: "pwrite", path: "db", errno: EIO)) {
                    try file.write(bytes("new"), at: offset)
                }
            }
            #expect(try readAll(file) == bytes("old"))
        }

        @Test func shortWriteLandsAPrefixThenThrows() throws {
            let fs = FaultInjectingFileSystem(plan: .shortWrite(occurrence: 2, bytes: 3))
            let file = try fs.open("db", mode: .createIfMissing)
            try file.write(bytes("0123456789"), at: 0)
            #expect(throws: StoreError.io(operation: "pwrite", path: "db", errno: ENOSPC)) {
                try file.write(bytes("abcdef"), at: 8)
            }
            #expect(fs.contents(of: "db") == bytes("01234567abc"))
            #expect(fs.invariantViolations() == [])
            #expect(fs.operationLog.last?.outcome == .shortWrite(written: 3, errno: ENOSPC))
            #expect(fs.bytesWritten(to: "db") == 13)
        }

        @Test func crashStopsTheOperationAndEveryLaterCall() throws {
            let fs = FaultInjectingFileSystem(plan: .crash(atOperation: 3))
            let file = try fs.open("db", mode: .createIfMissing)
            try file.write(bytes("aaaa"), at: 0)
            let crash = SimulatedCrash(operation: 3, kind: .remove, path: "db")
            #expect(throws: crash) { try fs.remove("db") }
            #expect(fs.fileExists("db"))  // the crashing operation did not happen
            #expect(fs.crash == crash)
            #expect(throws: crash) { try file.write(bytes("b"), at: 0) }
            #expect(throws: crash) { _ = try read(file, 1, at: 0) }
            #expect(throws: crash) { try file.sync() }
            #expect(throws: crash) { try file.close() }
            #expect(throws: crash) { _ = try fs.open("other", mode: .createIfMissing) }
            #expect(throws: crash) { try fs.syncDirectory(containing: "db") }
            #expect(fs.operationCount == 3)  // calls after the crash are not operations
            #expect(fs.contents(of: "db") == bytes("aaaa"))
        }

        @Test func crashInAWriteTearsIt() throws {
            let fs = FaultInjectingFileSystem(plan: .crash(at: .write, occurrence: 1, landing: 2))
            let file = try fs.open("db", mode: .createIfMissing)
            #expect(throws: SimulatedCrash(operation: 2, kind: .write, path: "db")) {
                try file.write(bytes("abcdef"), at: 0)
            }
            #expect(fs.contents(of: "db") == bytes("ab"))
            #expect(fs.invariantViolations() == [])
            #expect(fs.operationLog.last?.outcome == .crashed(landed: 2))
        }

        @Test func crashAtEveryOperationOfAWorkload() throws {
            // SQLite's loop: run once to count, then crash at each operation in turn.
            let counter = FaultInjectingFileSystem()
            try workload(counter)
            #expect(counter.operationCount == 5)
            for operation in 1...counter.operationCount {
                let fs = FaultInjectingFileSystem(plan: .crash(atOperation: operation))
                #expect(throws: SimulatedCrash.self) { try workload(fs) }
                #expect(fs.crash?.operation == operation)
                // The file was never made durable as a name (no syncDirectory): nothing survives.
                #expect(fs.survivingFiles(seed: 0) == [:])
            }
        }

        @Test func planCanBeChangedBetweenPhases() throws {
            let fs = FaultInjectingFileSystem()
            let file = try fs.open("db", mode: .createIfMissing)
            fs.plan = .fail(.write, occurrence: 2)  // occurrences count from the start
            try file.write(bytes("a"), at: 0)
            #expect(throws: StoreError.self) { try file.write(bytes("b"), at: 1) }
            fs.plan = .none
            try file.write(bytes("b"), at: 1)
        }

        @Test func operationLogRecordsWhatWasDone() throws {
            let fs = FaultInjectingFileSystem()
            let file = try fs.open("db", mode: .createIfMissing)
            try file.lock(.exclusive)
            try file.write([UInt8](repeating: 1, count: 4096), at: 0)
            try file.write([UInt8](repeating: 2, count: 512), at: 8192)
            _ = try read(file, 100, at: 8192)
            try file.truncate(to: 4096)
            try file.sync()
            try fs.syncDirectory(containing: "db")
            _ = try file.size()
            #expect(throws: StoreError.locked(path: "db")) {
                try fs.open("db", mode: .readOnly).lock(.shared)
            }
            try fs.remove("db")
            try file.close()
            #expect(
                fs.operationLog.map(\.description) == [
                    "#1 open db",
                    "#2 lock db",
                    "#3 write db @0 +4096",
                    "#4 write db @8192 +512",
                    "#5 read db @8192 +100",
                    "#6 truncate db to 4096",
                    "#7 sync db",
                    "#8 syncDirectory db",
                    "#9 size db",
                    "#10 open db",
                    "#11 lock db -> errno \(EWOULDBLOCK)",  // its handle is dropped: not an operation
                    "#12 remove db",
                    "#13 close db",
                ])
            #expect(fs.bytesWritten() == 4608)
            #expect(fs.invariantViolations() == [])
            #expect(fs.bytesWritten(to: "db", after: 3) == 512)
            fs.clearOperationLog()
            #expect(fs.operationLog.isEmpty)
            #expect(fs.operationCount == 13)
        }

        @Test func concurrentOperationsGetDistinctNumbers() throws {
            let fs = FaultInjectingFileSystem()
            let file = try fs.open("db", mode: .createIfMissing)
            DispatchQueue.concurrentPerform(iterations: 200) { index in
                try? file.write([UInt8(index % 256)], at: UInt64(index))
            }
            #expect(fs.operationLog.map(\.sequence) == Array(1...201))
            #expect(fs.contents(of: "db")?.count == 200)
            #expect(fs.invariantViolations() == [])
        }
    }
}
