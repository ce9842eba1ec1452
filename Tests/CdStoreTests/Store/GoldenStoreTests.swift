import Foundation
import Testing
@testable import CdStore

/// Golden store files written by this format version (Fixtures/stores/). They are opened and
/// checked entry by entry, and their header, WAL header, directory and map chunks are decoded and
/// re-encoded byte for byte, so a format change cannot slip by unnoticed: changing the format
/// means a new version, new fixtures, and a test that these still open or are refused clearly.
///
/// `CADMIUM_WRITE_FIXTURES=1 swift test --filter GoldenStore` rewrites them.
@Suite struct GoldenStoreTests {
    static let directory = fixturesDirectory().appendingPathComponent("stores")

    /// The content every golden store holds (deterministic).
    static func expectedModel(withWALCommits: Bool) -> StoreModel {
        var m = StoreModel()
        var people: [[UInt8]: [UInt8]] = [:]
        for i in 0..<300 where i % 7 != 0 {
            people[Array(String(format: "person-%04d", i).utf8)] =
                Array(
                    ("Person \(i) <person\(i)@example.com> joined in \(1990 + i % 30); "
                        + "notes: likes tea, chess and long walks by the river.")
                        .utf8)
        }
        m.trees["people"] = people
        var blobs: [[UInt8]: [UInt8]] = [:]
        for i in 0..<5 {
            blobs[[UInt8(i)]] = (0..<20_000).map { UInt8(truncatingIfNeeded: ($0 &* 31 &+ i &* 7) % 251) }
        }
        m.trees["blobs"] = blobs
        m.trees["empty"] = [:]
        if withWALCommits {
            m.trees["late"] = Dictionary(
                uniqueKeysWithValues: (0..<40).map {
                    (Array("late-\($0)".utf8), Array("written after the last checkpoint \($0)".utf8))
                })
        }
        return m
    }

    static func write(_ model: StoreModel, to store: Store) throws {
        try store.write { tx in
            for (name, entries) in model.trees.sorted(by: { $0.key < $1.key }) {
                let t = try tx.createTree(name)
                for (k, v) in entries.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) { try t.put(k, v) }
            }
        }
    }

    @Test func writeFixturesWhenAsked() throws {
        guard ProcessInfo.processInfo.environment["CADMIUM_WRITE_FIXTURES"] == "1" else { return }
        let fm = FileManager.default
        try fm.createDirectory(at: Self.directory, withIntermediateDirectories: true)
        let clean = Self.directory.appendingPathComponent("v1-clean.cdstore").path
        let withWAL = Self.directory.appendingPathComponent("v1-wal.cdstore").path
        for p in [clean, clean + "-wal", withWAL, withWAL + "-wal"] { try? fm.removeItem(atPath: p) }
        var o = StoreOptions()
        o.pageSize = 4096
        // v1-clean: every commit checkpointed, an empty WAL generation.
        let a = try Store.open(path: clean, options: o)
        var base = Self.expectedModel(withWALCommits: false)
        base.trees["people"]?[Array("person-0000".utf8)] = [1]  // written, then deleted below
        try Self.write(base, to: a)
        _ = try a.write { try $0.tree("people")!.delete(Array("person-0000".utf8)) }
        try a.close()
        // v1-wal: as clean, plus commits still in the WAL (copied while the store is open).
        o.checkpointThresholdBytes = 1 << 30
        try fm.copyItem(atPath: clean, toPath: withWAL)
        try fm.copyItem(atPath: clean + "-wal", toPath: withWAL + "-wal")
        let scratch = withWAL + ".tmp"
        let b = try Store.open(path: withWAL, options: o)
        try b.write { tx in
            let t = try tx.createTree("late")
            for i in 0..<40 { try t.put(Array("late-\(i)".utf8), Array("written after the last checkpoint \(i)".utf8)) }
        }
        try fm.copyItem(atPath: withWAL, toPath: scratch)
        try fm.copyItem(atPath: withWAL + "-wal", toPath: scratch + "-wal")
        try b.close()
        try fm.removeItem(atPath: withWAL); try fm.removeItem(atPath: withWAL + "-wal")
        try fm.moveItem(atPath: scratch, toPath: withWAL);
        try fm.moveItem(atPath: scratch + "-wal", toPath: withWAL + "-wal")
        // v2-future: the clean store claiming a format version this build does not know.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: clean)))
        for slot in FileHeader.slotOffsets.map(Int.init) {
            bytes.storeU32(2, at: slot + 8)
            bytes.storeU32(Checksum.crc32(Array(bytes[slot..<(slot + 124)])), at: slot + 124)
        }
        try Data(bytes).write(to: Self.directory.appendingPathComponent("v2-future.cdstore"))
    }

    /// Copies a fixture (and its WAL) to a temporary directory: opening read-write checkpoints.
    static func copy(_ name: String, into dir: TemporaryDirectory) throws -> String {
        let target = dir.path(name)
        let source = directory.appendingPathComponent(name).path
        try FileManager.default.copyItem(atPath: source, toPath: target)
        if FileManager.default.fileExists(atPath: source + "-wal") {
            try FileManager.default.copyItem(atPath: source + "-wal", toPath: target + "-wal")
        }
        return target
    }

    @Test(arguments: [("v1-clean.cdstore", false), ("v1-wal.cdstore", true)])
    func goldenStoreOpensWithItsContent(name: String, hasWALCommits: Bool) throws {
        let dir = try TemporaryDirectory()
        let path = try Self.copy(name, into: dir)
        let expected = Self.expectedModel(withWALCommits: hasWALCommits)
        var ro = StoreOptions(); ro.readOnly = true
        let readOnly = try Store.open(path: path, options: ro)
        #expect(try readOnly.read { try firstDifference($0, expected) } == nil)
        #expect((readOnly.recoveredWAL?.commits.isEmpty ?? true) == !hasWALCommits)
        try readOnly.close()
        let store = try Store.open(path: path)  // recovery checkpoints the WAL commits
        #expect(try store.read { try firstDifference($0, expected) } == nil)
        try store.write { try $0.tree("empty")!.put([1], [2]) }
        try store.close()
    }

    @Test(arguments: ["v1-clean.cdstore", "v1-wal.cdstore"])
    func goldenStructuresReencodeByteForByte(name: String) throws {
        let url = Self.directory.appendingPathComponent(name)
        let bytes = [UInt8](try Data(contentsOf: url))
        var headers: [FileHeader] = []
        for offset in FileHeader.slotOffsets.map(Int.init) {
            let slot = Array(bytes[offset..<(offset + FileHeader.size)])
            if case .success(let h) = FileHeader.decode(slot) {
                #expect(h.encoded() == slot, "header copy at \(offset) re-encodes differently")
                headers.append(h)
            }
        }
        let header = try #require(headers.max { $0.checkpointSequence < $1.checkpointSequence })
        #expect(header.pageSize == 4096)
        let dir = Array(bytes[Int(header.directoryOffset)..<Int(header.directoryOffset) + Int(header.directoryLength)])
        let chunks = try PageMapLayout.decodeDirectory(dir, chunkCount: Int(header.chunkCount)).get()
        #expect(PageMapLayout.encodeDirectory(chunks) == dir)
        for (i, c) in chunks.enumerated() {
            let chunk = Array(bytes[Int(c.offset)..<Int(c.offset) + Int(c.length)])
            let count = min(Int(header.entriesPerChunk), Int(header.pageCount) - i * Int(header.entriesPerChunk))
            let entries = try PageMapLayout.decodeChunk(chunk, index: UInt32(i), expectedCount: count).get()
            #expect(PageMapLayout.encodeChunk(index: UInt32(i), entries: entries[...]) == chunk)
            // Every image the map names carries that page number, its commit and its CRC.
            for (n, e) in entries.enumerated() where e.isPresent {
                let image = Array(bytes[Int(e.offset)..<Int(e.offset) + Int(e.length)])
                let h = image.withUnsafeBytes { PageImage.header(of: $0) }
                #expect(
                    h.page == PageNumber(UInt32(i * Int(header.entriesPerChunk) + n)) && h.commit == e.commit
                        && h.crc == e.crc)
            }
        }
        let wal = [UInt8](try Data(contentsOf: URL(fileURLWithPath: url.path + "-wal")))
        let walHeader = try WALLayout.Header.decode(wal).get()
        #expect(walHeader.encoded() == Array(wal[0..<WALLayout.headerSize]))
        #expect(Int(walHeader.pageSize) == 4096)
    }

    @Test func futureFormatVersionIsRefusedClearly() throws {
        let dir = try TemporaryDirectory()
        let path = try Self.copy("v2-future.cdstore", into: dir)
        #expect(throws: StoreError.unsupportedFormatVersion(path: path, found: 2, supported: FileHeader.formatVersion))
        {
            _ = try Store.open(path: path)
        }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(
            bytes == (try Data(contentsOf: Self.directory.appendingPathComponent("v2-future.cdstore"))),
            "a refused open must not write")
    }

    @Test func notAStoreIsRefusedClearly() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("text.txt")
        try Data(String(repeating: "hello, world\n", count: 1000).utf8).write(to: URL(fileURLWithPath: path))
        do {
            _ = try Store.open(path: path)
            Issue.record("opening a text file must fail")
        } catch let error as StoreError {
            guard case .notAStore = error else { Issue.record("expected notAStore, got \(error)"); return }
        }
    }
}
