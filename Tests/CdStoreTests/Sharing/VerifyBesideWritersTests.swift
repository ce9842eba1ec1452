import CdFaultSupport
import Foundation
import Testing
@testable import CdStore

/// The verifier reads a store other processes have open on a snapshot, without stopping them
/// (VerifierSnapshot VS1–VS2): in the middle of a verification another store commits and runs a
/// checkpoint, which copies nothing past the verifier's mark and resets no WAL, and the passes after
/// it still read the snapshot; a child process that keeps transferring money is verified again and
/// again and goes on acknowledging commits meanwhile. The last store to close removes the shared
/// file.
@Suite struct VerifyBesideWritersTests {
    /// A pass that commits through `writer` and runs its checkpoint while the verifier holds its
    /// snapshot; it records what the checkpoint did, and the value of key "late" the snapshot sees.
    struct CommitDuringVerification: VerificationPass {
        let name = "commit meanwhile"
        let writer: Store
        let result: LockedState<CheckpointResult?>

        func run(_ context: VerificationContext) throws {
            try writer.write { tx in try tx.openOrCreateTree("t").put(Array("late".utf8), Array("1".utf8)) }
            result.withLock { $0 = try? writer.checkpoint() }
        }
    }

    /// A pass that reads the store read-only through the verifier's file system, as the object
    /// layer's pass does, and records whether it sees key "late".
    struct ReadThroughTheSnapshot: VerificationPass {
        let name = "read the snapshot"
        let sawLate: LockedState<Bool?>

        func run(_ context: VerificationContext) throws {
            var options = StoreOptions(fileSystem: context.fileSystem)
            options.readOnly = true
            options.sharing = .exclusive
            let store = try Store.open(path: context.path, options: options)
            defer { try? store.close() }
            let late = try store.read { tx in try tx.tree("t")?.get(Array("late".utf8)) }
            sawLate.withLock { $0 = late != nil }
        }
    }

    @Test(arguments: ["memory", "posix"])
    func anotherStoreCommitsAndCheckpointsWhileTheVerifierReads(_ kind: String) throws {
        let dir = try TemporaryDirectory()
        let fs: any StoreFileSystem = kind == "memory" ? InMemoryFileSystem() : POSIXFileSystem()
        let path = kind == "memory" ? "/s" : dir.path("s")
        let writer = try Store.open(path: path, options: StoreSharingTests.options(fs))
        for i in 0..<300 { try StoreSharingTests.put(writer, "k\(i)", String(repeating: "v", count: i % 90)) }
        let checkpoint = LockedState<CheckpointResult?>(nil)
        let sawLate = LockedState<Bool?>(nil)
        var options = VerifierOptions(fileSystem: fs)
        options.additionalPasses = [
            CommitDuringVerification(writer: writer, result: checkpoint), ReadThroughTheSnapshot(sawLate: sawLate),
        ]
        let report = try StoreVerifier.verify(path: path, options: options)
        #expect(report.isClean, "\(report.problems.prefix(3))")
        let result = try #require(checkpoint.withLock { $0 })
        #expect(result.pagesCopied == 0 && !result.walReset, "the checkpoint waited for the verifier's mark: \(result)")
        #expect(sawLate.withLock { $0 } == false, "the snapshot ends before the commit made meanwhile")
        // Once the verifier is gone, the checkpoint copies everything and the store verifies.
        #expect(try writer.checkpoint().pagesCopied > 0)
        #expect(try StoreSharingTests.value(writer, "late") == "1")
        #expect(try StoreVerifier.verify(path: path, options: VerifierOptions(fileSystem: fs)).isClean)
        try writer.close()
        if kind == "posix" {
            #expect(FileManager.default.fileExists(atPath: path + "-shm"), "the shared file outlives its stores")
        }
    }

    @Test func aChildProcessKeepsCommittingWhileItIsVerifiedAgainAndAgain() throws {
        let executable = try CrashChild.executable()
        let dir = try TemporaryDirectory()
        let path = dir.path("bank.cdstore")
        let seeder = try Store.open(path: path, options: BankWorkload.options())
        try BankWorkload.seed(seeder)
        try seeder.close()
        let child = try BankChild(executable, path: path, tag: "v")
        let started = Date()
        while child.lastAcknowledged < 20, Date().timeIntervalSince(started) < 30 { usleep(5_000) }
        var acknowledged = [child.lastAcknowledged]
        // Eight rounds take tens of milliseconds, while each of the child's commits waits for an
        // fsync that a busy machine can hold for longer than that. So the rounds go on (up to 30 s)
        // until the child has acknowledged a commit made after the first round began: a verifier
        // that held the child back would still fail the test, a slow disk no longer does.
        var round = 0
        let verifying = Date()
        repeat {
            round += 1
            let report = try StoreVerifier.verify(path: path)
            #expect(report.isClean, "round \(round): \(report.problems.prefix(3))")
            acknowledged.append(child.lastAcknowledged)
        } while round < 8 || (acknowledged.last! <= acknowledged.first! && Date().timeIntervalSince(verifying) < 30)
        let (last, killed, stderr) = child.kill()
        #expect(killed, "the child ended before the kill: \(stderr)")
        #expect(!stderr.contains("VIOLATION"), "\(stderr)")
        #expect(acknowledged.first! >= 20, "the child made progress before the first verification")
        #expect(
            acknowledged.last! > acknowledged.first!,
            "the child went on committing while it was verified: \(acknowledged.prefix(10))… after \(round) rounds")
        let reopened = try Store.open(path: path, options: BankWorkload.options())
        try reopened.read { tx in
            try BankWorkload.checkTotal(tx)
            #expect(try BankWorkload.missing(tag: "v", upTo: last, in: tx).isEmpty)
        }
        try reopened.close()
    }
}
