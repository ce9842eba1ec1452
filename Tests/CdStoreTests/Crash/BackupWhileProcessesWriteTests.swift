import CdFaultSupport
import Foundation
import Testing
@testable import CdStore

/// `Store.backup` beside writers in other processes (BK1 of Store+Backup.swift, with the
/// shared-file coordination of several processes): two `cadmium-crash-child --bank` processes
/// keep transferring money between the accounts of one store while this process backs it up
/// three times. Each copy is one whole commit (the accounts sum to their total), holds every
/// commit a child acknowledged before the backup began, and verifies; the source verifies after.
@Suite struct BackupWhileProcessesWriteTests {
    @Test func eachCopyIsOneWholeCommitWithEveryEarlierAcknowledgedCommit() throws {
        let executable = try CrashChild.executable()
        let dir = try TemporaryDirectory()
        let path = dir.path("bank.cdstore")
        let store = try Store.open(path: path, options: BankWorkload.options())
        try BankWorkload.seed(store)
        let children = try (1...2).map { try BankChild(executable, path: path, tag: "w\($0)") }
        var copies: [(path: String, acknowledged: [String: Int])] = []
        for round in 1...3 {
            // Wait until each writer has acknowledged more commits than at the last backup.
            let floor = copies.last?.acknowledged ?? [:]
            let deadline = Date().addingTimeInterval(30)
            while children.contains(where: { $0.lastAcknowledged <= floor[$0.tag] ?? 0 }), Date() < deadline {
                usleep(20_000)
            }
            let acknowledged = Dictionary(uniqueKeysWithValues: children.map { ($0.tag, $0.lastAcknowledged) })
            let copy = dir.path("copy-\(round).cdstore")
            try store.backup(to: copy)
            copies.append((copy, acknowledged))
        }
        var running = 0
        for child in children {
            let (acks, killed, stderr) = child.kill()
            if killed { running += 1 }
            #expect(!stderr.contains("VIOLATION"), "\(child.tag): \(stderr)")
            #expect(acks > 0, "\(child.tag) acknowledged nothing: \(stderr)")
        }
        #expect(running == 2, "the writers ran through every backup")
        for (copy, acknowledged) in copies {
            let report = try StoreVerifier.verify(path: copy)
            #expect(report.isClean, "\(copy): \(report.problems.prefix(3))")
            let opened = try Store.open(path: copy, options: BankWorkload.options())
            try opened.read { tx in
                try BankWorkload.checkTotal(tx)
                for (tag, last) in acknowledged {
                    let missing = try BankWorkload.missing(tag: tag, upTo: last, in: tx)
                    #expect(
                        missing.isEmpty,
                        "\(copy): \(tag) acknowledged \(last) before the backup, \(missing.count) missing")
                }
            }
            try opened.close()
        }
        try store.close()
        #expect(try StoreVerifier.verify(path: path).isClean)
    }
}
