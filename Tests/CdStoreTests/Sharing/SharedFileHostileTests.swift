import Foundation
import Testing
@testable import CdStore

/// The shared file is untrusted input (SharedStoreCoordination, Store+Refresh MP4): whatever is
/// written into its words — by a process that died half-way, by something that is not a store —
/// the stores attached to it give the right answers or a typed error, and never crash or hang.
@Suite struct SharedFileHostileTests {
    /// The words of the shared file a hostile value goes into, by name (SharedStateLayout).
    static let fields: [(String, Int)] = [
        ("magic", SharedStateLayout.magicWord), ("version", SharedStateLayout.versionWord),
        ("sequence", SharedStateLayout.sequenceWord), ("written commit", 3), ("WAL end", 4),
        ("chain CRC and salt", 5), ("checkpoint sequence", 6), ("header commit", 7),
        ("state CRC", SharedStateLayout.stateCRCWord), ("durable commit", SharedStateLayout.durableWord),
        ("checkpoint running", SharedStateLayout.checkpointWord),
        ("own slot mark", SharedStateLayout.markWord(slot: 0)),
        ("other slot mark", SharedStateLayout.markWord(slot: 1)),
        ("dead slot mark", SharedStateLayout.markWord(slot: 7)),
    ]
    static let values: [UInt64] = [0, 1, 2, 3, 0xFFFF_FFFF, 1 << 62, UInt64.max, UInt64.max - 1, 0x8000_0000_0000_0001]

    static func options(_ fs: InMemoryFileSystem) -> StoreOptions {
        var o = StoreOptions(fileSystem: fs)
        o.pageSize = 4096
        o.durability = .normal
        o.checkpointThresholdBytes = 24 * 1024
        return o
    }

    static func word(_ fs: InMemoryFileSystem, _ index: Int) -> UnsafeMutablePointer<UInt64> {
        fs.sharedMemory(of: "/s-shm")!.baseAddress!.assumingMemoryBound(to: UInt64.self) + index
    }

    static var cases: [(String, Int, UInt64)] {
        fields.flatMap { f in values.map { (f.0, f.1, $0) } }
    }

    @Test(arguments: cases.indices)
    func aHostileWordGivesTheRightAnswerOrATypedError(_ caseIndex: Int) throws {
        let (name, index, value) = Self.cases[caseIndex]
        let fs = InMemoryFileSystem()
        let a = try Store.open(path: "/s", options: Self.options(fs))
        let b = try Store.open(path: "/s", options: Self.options(fs))
        var model: [String: String] = [:]
        func put(_ store: Store, _ k: String, _ v: String) throws {
            try store.write { tx in try tx.openOrCreateTree("t").put(Array(k.utf8), Array(v.utf8)) }
            model[k] = v
        }
        for i in 0..<40 { try put(i % 2 == 0 ? a : b, "k\(i)", "v\(i)") }
        Self.word(fs, index).pointee = value
        // Both stores go on: every answer is the model's, or the call throws a StoreError.
        for round in 0..<30 {
            let store = round % 2 == 0 ? a : b
            do {
                try put(store, "k\(round % 50)", "r\(round)-" + String(repeating: "x", count: round * 40))
            } catch let error as StoreError {
                if case .unsupportedFormatVersion = error { continue }
                if case .corruption = error { continue }
                Issue.record("\(name) = \(value): write \(round) threw \(error)")
            }
            do {
                let seen: [String: String] = try store.read { tx in
                    var seen: [String: String] = [:]
                    try tx.tree("t")?.scan { k, v in
                        seen[String(decoding: k, as: UTF8.self)] = String(decoding: v, as: UTF8.self)
                        return true
                    }
                    return seen
                }
                #expect(seen == model, "\(name) = \(value): round \(round) read a state that is not the last commit")
            } catch let error as StoreError {
                if case .unsupportedFormatVersion = error { continue }
                if case .corruption = error { continue }
                Issue.record("\(name) = \(value): read \(round) threw \(error)")
            }
        }
        try? a.close()
        try? b.close()
        // Alone again, a store rebuilds the shared file from the page file and the WAL.
        let c = try Store.open(path: "/s", options: Self.options(fs))
        let last = try c.read { tx in try tx.tree("t")?.get(Array("k29".utf8)) }
        #expect(last.map { String(decoding: $0, as: UTF8.self) } == model["k29"], "\(name) = \(value): after reopening")
        try c.close()
    }

    @Test func anotherVersionBesideAttachedStoresIsRefusedAndRebuiltWhenAlone() throws {
        let fs = InMemoryFileSystem()
        let a = try Store.open(path: "/s", options: Self.options(fs))
        Self.word(fs, SharedStateLayout.versionWord).pointee = 2
        #expect(throws: StoreError.unsupportedFormatVersion(path: "/s-shm", found: 2, supported: 1)) {
            try Store.open(path: "/s", options: Self.options(fs))
        }
        try a.close()
        let b = try Store.open(path: "/s", options: Self.options(fs))
        #expect(Self.word(fs, SharedStateLayout.versionWord).pointee == 1)
        try b.close()
    }

    @Test func aProcessThatDiesHoldingTheWriterLockMidPublishIsRepairedByTheNextWriter() throws {
        let fs = InMemoryFileSystem()
        let a = try Store.open(path: "/s", options: Self.options(fs))
        let b = try Store.open(path: "/s", options: Self.options(fs))
        try a.write { tx in try tx.openOrCreateTree("t").put([1], [1]) }
        // As if a process died inside `publish` and inside a checkpoint: an odd sequence and a
        // running checkpoint that nobody runs.
        Self.word(fs, SharedStateLayout.sequenceWord).pointee |= 1
        Self.word(fs, SharedStateLayout.checkpointWord).pointee = 5
        try b.write { tx in try tx.openOrCreateTree("t").put([2], [2]) }
        #expect(Self.word(fs, SharedStateLayout.sequenceWord).pointee & 1 == 0)
        #expect(Self.word(fs, SharedStateLayout.checkpointWord).pointee == 0)
        #expect(try a.read { try $0.tree("t")?.get([2]) } == [2])
        #expect(try a.read { try $0.tree("t")?.get([1]) } == [1])
        try a.close()
        try b.close()
    }
}
