import CdFaultSupport
import Foundation
import Testing
@testable import CdStore

/// Damaged and hostile files give a typed error, never a crash, an out-of-bounds read or an
/// allocation the file does not justify.
@Suite struct StoreHostileFileTests {
    static func golden(_ name: String) throws -> [String: [UInt8]] {
        let dir = fixturesDirectory().appendingPathComponent("stores")
        var files: [String: [UInt8]] = ["/s": [UInt8](try Data(contentsOf: dir.appendingPathComponent(name)))]
        if let wal = try? Data(contentsOf: dir.appendingPathComponent(name + "-wal")) { files["/s-wal"] = [UInt8](wal) }
        return files
    }

    /// Opens and reads everything; returns the error if any (a crash fails the whole run).
    @discardableResult
    static func openAndReadAll(_ files: [String: [UInt8]], readOnly: Bool) -> Error? {
        var o = StoreOptions(fileSystem: InMemoryFileSystem(files: files))
        o.readOnly = readOnly
        o.cacheBytes = 1 << 20
        do {
            let store = try Store.open(path: "/s", options: o)
            defer { try? store.close() }
            try readEveryTree(of: store)
            if !readOnly { try store.write { try $0.openOrCreateTree("x").put([1], [1]) } }
            return nil
        } catch {
            return error
        }
    }

    static func setHeader(_ files: inout [String: [UInt8]], _ edit: (inout FileHeader) -> Void) {
        var bytes = files["/s"]!
        for slot in FileHeader.slotOffsets.map(Int.init) {
            guard case .success(var h) = FileHeader.decode(Array(bytes[slot..<(slot + FileHeader.size)])) else {
                continue
            }
            edit(&h)
            bytes.replaceSubrange(slot..<(slot + FileHeader.size), with: h.encoded())
        }
        files["/s"] = bytes
    }

    @Test func headerClaimingHugePageCountIsCorruptionNotAnAllocation() throws {
        var files = try Self.golden("v1-clean.cdstore")
        Self.setHeader(&files) { h in
            h.pageCount = 2_000_000_000
            h.chunkCount = (h.pageCount + h.entriesPerChunk - 1) / h.entriesPerChunk
        }
        let error = Self.openAndReadAll(files, readOnly: true)
        guard case .corruption(_, .pageMap, _)? = error as? StoreError else {
            Issue.record("expected page-map corruption, got \(String(describing: error))"); return
        }
    }

    @Test func directoryOutsideTheFileIsCorruption() throws {
        var files = try Self.golden("v1-clean.cdstore")
        Self.setHeader(&files) { $0.directoryOffset = 1 << 40 }
        #expect(Self.openAndReadAll(files, readOnly: true) is StoreError)
    }

    @Test func walFrameWithHugeLengthIsATornTail() throws {
        var files = try Self.golden("v1-wal.cdstore")
        var wal = files["/s-wal"]!
        wal.storeU32(0xFFFF_FFF0, at: WALLayout.headerSize + 16)  // first frame's payload length
        files["/s-wal"] = wal
        let store = try Store.open(
            path: "/s",
            options: {
                var o = StoreOptions(fileSystem: InMemoryFileSystem(files: files)); o.readOnly = true; return o
            }())
        #expect(store.recoveredWAL?.commits.isEmpty == true)
        #expect(store.recoveredWAL?.stopReason?.contains("payload length") == true)
        #expect(try store.read { try $0.tree("late") } == nil, "the damaged commit must not be applied")
        try store.close()
    }

    @Test func truncatedFilesNeverCrash() throws {
        let files = try Self.golden("v1-wal.cdstore")
        for name in ["/s", "/s-wal"] {
            let full = files[name]!
            for cut in stride(from: 0, to: full.count, by: max(1, full.count / 97)) {
                var damaged = files
                damaged[name] = Array(full[0..<cut])
                Self.openAndReadAll(damaged, readOnly: true)
                Self.openAndReadAll(damaged, readOnly: false)
            }
        }
    }

    /// Seeded single-byte flips anywhere in the page file and the WAL: opening and reading every
    /// tree either works or throws a `StoreError` — never a crash. (The verifier's campaign
    /// checks that every flip of live data is *detected*.)
    @Test(arguments: testSeeds([1, 2]))
    func randomByteFlipsNeverCrash(seed: UInt64) throws {
        let files = try Self.golden("v1-wal.cdstore")
        var rng = SeededGenerator(seed: seed)
        var failures = 0
        for _ in 0..<150 {
            var damaged = files
            let name = Int.random(in: 0..<5, using: &rng) == 0 ? "/s-wal" : "/s"
            var bytes = damaged[name]!
            let at = Int.random(in: 0..<bytes.count, using: &rng)
            bytes[at] ^= UInt8.random(in: 1...255, using: &rng)
            damaged[name] = bytes
            if let error = Self.openAndReadAll(damaged, readOnly: true) {
                #expect(error is StoreError, "seed \(seed): flip at \(name)@\(at) threw \(error)")
                failures += 1
            }
        }
        #expect(failures > 0, "seed \(seed): no flip was noticed at all")
    }
}
