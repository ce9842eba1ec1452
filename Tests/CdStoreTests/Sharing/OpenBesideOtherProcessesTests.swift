import Foundation
import Synchronization
import Testing
@testable import CdStore

/// Opening a store that other processes hold while they checkpoint (Store+Open OP1–OP2): the
/// other process acts at one exact step of the open (InterposedFileSystem), and the open still
/// succeeds and sees the last commit. A WAL cut under the opener's reads, or page-file extents
/// rewritten under them, are the other process's work, never damage.
@Suite struct OpenBesideOtherProcessesTests {
    static func options(_ fs: any StoreFileSystem) -> StoreOptions {
        var o = StoreOptions(fileSystem: fs)
        o.pageSize = 4096
        o.durability = .normal
        o.checkpointThresholdBytes = 1 << 30
        return o
    }

    static func putAll(_ store: Store, round: Int, keys: Int = 300) throws {
        for i in stride(from: 0, to: keys, by: 10) {
            try store.write { tx in
                let t = try tx.openOrCreateTree("t")
                for k in i..<min(i + 10, keys) {
                    try t.put(Array("k\(k)".utf8), Array("r\(round)-\(k)-".utf8) + [UInt8](repeating: 7, count: 60))
                }
            }
        }
    }

    static func expectRound(_ store: Store, _ round: Int, keys: Int = 300) throws {
        try store.read { tx in
            let t = try #require(try tx.tree("t"))
            for k in 0..<keys {
                let value = try #require(try t.get(Array("k\(k)".utf8)))
                #expect(value.starts(with: Array("r\(round)-\(k)-".utf8)), "k\(k)")
            }
        }
    }

    /// Runs `body` the first time the hook matches, and never again.
    final class Once: Sendable {
        private let done = Atomic<Bool>(false)
        func callAsFunction(_ body: () throws -> Void) rethrows {
            if done.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged {
                try body()
            }
        }
    }

    @Test func anOpenWhileAnotherProcessCheckpointsAndCutsTheLogSucceeds() throws {
        let base = InMemoryFileSystem()
        let fs = InterposedFileSystem(base)
        let a = try Store.open(path: "/s", options: Self.options(base))
        try Self.putAll(a, round: 1)
        let once = Once()
        // The first time the opener reads a WAL frame (it has measured the log already), the other
        // process checkpoints everything and truncates the log (an explicit checkpoint does).
        fs.interpose { path, step in
            guard path.hasSuffix("-wal"), case .read(let offset, _) = step, offset > 0 else { return }
            once { #expect((try? a.checkpoint())?.walReset == true) }
        }
        let b = try Store.open(path: "/s", options: Self.options(fs))
        fs.interpose(nil)
        try Self.expectRound(b, 1)
        try Self.putAll(b, round: 2)
        try Self.expectRound(a, 2)
        try b.close()
        try a.close()
    }

    @Test func anOpenWhileAnotherProcessRewritesThePageFileTwiceSucceeds() throws {
        let base = InMemoryFileSystem()
        let fs = InterposedFileSystem(base)
        let a = try Store.open(path: "/s", options: Self.options(base))
        try Self.putAll(a, round: 1)
        try a.checkpoint()
        let once = Once()
        // Once the opener has read the page file header, the other process rewrites every key and
        // checkpoints twice: the second checkpoint reuses the extents the header read names.
        fs.interpose { path, step in
            guard !path.hasSuffix("-wal"), case .read(let offset, _) = step, offset >= FileHeader.dataStart else {
                return
            }
            once {
                for round in 2...3 {
                    try? Self.putAll(a, round: round)
                    #expect((try? a.checkpoint()) != nil)
                }
            }
        }
        let b = try Store.open(path: "/s", options: Self.options(fs))
        fs.interpose(nil)
        try Self.expectRound(b, 3)
        try b.close()
        try a.close()
    }
}
