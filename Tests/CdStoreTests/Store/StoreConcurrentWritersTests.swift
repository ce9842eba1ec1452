import Dispatch
import Foundation
import Testing
@testable import CdStore

/// Many transactions at once on real files: writers from several threads contend for the writer
/// gate, readers check that each snapshot is internally consistent, and a thread forces
/// checkpoints (and WAL resets) underneath them. Run under ThreadSanitizer by `make test-tsan`.
@Suite struct StoreConcurrentWritersTests {
    @Test func writersReadersAndCheckpointsAtOnceKeepEverySnapshotConsistent() throws {
        let dir = try TemporaryDirectory()
        var o = StoreOptions()
        o.pageSize = 4096
        o.durability = .normal
        o.cacheBytes = 4096 * 48  // small: reads go to the files during checkpoints
        o.checkpointThresholdBytes = 32 * 1024
        let store = try Store.open(path: dir.path("concurrent.cdstore"), options: o)
        try store.write { tx in try tx.createTree("t").put(Array("total".utf8), Array("0".utf8)) }

        let writers = 4, commitsPerWriter = 80, readers = 3
        let log = SharedLog()
        let fail = log.fail
        let group = DispatchGroup()
        for w in 0..<writers {
            DispatchQueue.global().async(group: group) {
                defer { log.writerFinished() }
                for i in 0..<commitsPerWriter {
                    do {
                        try store.write { tx in
                            let t = try tx.tree("t")!
                            // Read-modify-write of one counter: lost updates show if two
                            // writers ever ran at once.
                            let total = Int(String(decoding: try t.get(Array("total".utf8))!, as: UTF8.self))!
                            try t.put(Array("total".utf8), Array(String(total + 1).utf8))
                            try t.put(
                                Array("w\(w)-\(i)".utf8), [UInt8](repeating: UInt8(w), count: 40 + (i * 97) % 700))
                        }
                    } catch { fail("writer \(w) commit \(i): \(error)") }
                }
            }
        }
        for r in 0..<readers {
            DispatchQueue.global().async(group: group) {
                var rounds = 0
                while log.writersFinished < writers || rounds < 5 {
                    rounds += 1
                    do {
                        try store.read { tx in
                            let t = try tx.tree("t")!
                            let total = Int(String(decoding: try t.get(Array("total".utf8))!, as: UTF8.self))!
                            var keys = 0
                            try t.scan(from: Array("w".utf8)) { _, _ in
                                keys += 1; return true
                            }
                            if keys != total {
                                fail("reader \(r) at snapshot \(tx.snapshot): total \(total), \(keys) keys")
                            }
                        }
                    } catch { fail("reader \(r): \(error)") }
                }
            }
        }
        DispatchQueue.global().async(group: group) {
            while log.writersFinished < writers {
                do { try store.checkpoint() } catch { fail("checkpoint: \(error)") }
                usleep(2_000)
            }
        }
        group.wait()
        for failure in log.failures { Issue.record(Comment(rawValue: failure)) }
        let total = try store.read { tx in try tx.tree("t")!.get(Array("total".utf8)) }
        #expect(total == Array(String(writers * commitsPerWriter).utf8))
        #expect(store.statistics.checkpoints > 0)
        try store.close()
        let report = try StoreVerifier.verify(path: dir.path("concurrent.cdstore"))
        #expect(report.isClean, "\(report.problemsOnly.prefix(3))")
    }
}

/// What the threads of a concurrency test report, behind one lock.
final class SharedLog: Sendable {
    private let state = LockedState<(failures: [String], writersFinished: Int)>(([], 0))
    @Sendable func fail(_ text: String) { state.withLock { $0.failures.append(text) } }
    func writerFinished() { state.withLock { $0.writersFinished += 1 } }
    var writersFinished: Int { state.withLock { $0.writersFinished } }
    var failures: [String] { state.withLock { $0.failures } }
}
