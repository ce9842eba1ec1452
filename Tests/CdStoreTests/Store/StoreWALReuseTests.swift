import Foundation
import Testing
@testable import CdStore

/// Two behaviours of the commit path that keep durable small commits cheap:
///  - an automatic checkpoint keeps the WAL file's length, so later commits overwrite allocated
///    blocks and recovery must stop at the old generation's frames past the new log's end;
///  - small commits write raw images but for the meta page (WriteTransaction R5), and the
///    checkpoint compresses them without sealing damage under a fresh checksum.
@Suite struct StoreWALReuseTests {
    static func options(threshold: UInt64) -> StoreOptions {
        var o = StoreOptions()
        o.durability = .full
        o.checkpointThresholdBytes = threshold
        return o
    }

    static func key(_ i: Int) -> [UInt8] { Array(String(format: "key-%06d", i).utf8) }
    static func value(_ i: Int) -> [UInt8] { Array(String(repeating: "value \(i) of the reused log ", count: 4).utf8) }

    /// Copies the store's two files as they are now: what a crash at this instant leaves, since
    /// every commit so far was fsynced.
    static func crashCopy(of store: Store, to path: String) throws {
        try FileManager.default.copyItem(atPath: store.path, toPath: path)
        try FileManager.default.copyItem(atPath: store.walPath, toPath: path + "-wal")
    }

    static func walFileSize(_ store: Store) throws -> UInt64 {
        (try FileManager.default.attributesOfItem(atPath: store.walPath)[.size] as? NSNumber)?.uint64Value ?? 0
    }

    @Test func automaticCheckpointKeepsTheLogAndRecoveryIgnoresItsOldFrames() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.path("reuse"), options: Self.options(threshold: 64 << 10))
        var written = 0
        // Enough one-key commits to pass the threshold several times.
        while store.statistics.checkpoints < 3 {
            try store.write { tx in try tx.openOrCreateTree("t").put(Self.key(written), Self.value(written)) }
            written += 1
            #expect(written < 5_000, "no automatic checkpoint after \(written) commits")
            if written >= 5_000 { break }
        }
        // A few commits into the new generation: the file keeps old frames after them.
        for _ in 0..<3 {
            try store.write { tx in try tx.openOrCreateTree("t").put(Self.key(written), Self.value(written)) }
            written += 1
        }
        let walEnd = store.statistics.walBytes
        let fileSize = try Self.walFileSize(store)
        #expect(
            fileSize > walEnd + UInt64(WALLayout.frameHeaderSize),
            "the reset log should keep the old generation's frames (file \(fileSize), log end \(walEnd))")

        let copy = dir.path("crashed")
        try Self.crashCopy(of: store, to: copy)
        let report = try StoreVerifier.verify(path: copy)
        #expect(report.problems.isEmpty, "a reused log is not damage: \(report.problems)")

        let recovered = try Store.open(path: copy, options: Self.options(threshold: 64 << 10))
        try recovered.read { tx in
            let t = try #require(try tx.tree("t"))
            var count = 0
            try t.scan { k, v in
                let i = Int(String(decoding: k.dropFirst(4), as: UTF8.self))!
                #expect(v == Self.value(i))
                count += 1
                return true
            }
            #expect(count == written, "recovery found \(count) of \(written) committed keys")
        }
        try recovered.close()

        // An explicit checkpoint (as close does) gives the space back.
        try store.checkpoint()
        #expect(try Self.walFileSize(store) == UInt64(WALLayout.headerSize))
        try store.close()
    }

    @Test func smallCommitsLogRawImagesThatTheCheckpointCompresses() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.path("raw"), options: Self.options(threshold: 1 << 40))
        // A large commit: compressed at commit.
        try store.write { tx in
            let t = try tx.openOrCreateTree("t")
            for i in 0..<2_000 { try t.put(Self.key(i), Self.value(i)) }
        }
        // A small commit: raw in the WAL.
        try store.write { tx in try tx.tree("t")!.put(Self.key(5), Array("changed".utf8)) }

        let wal = try POSIXFileSystem().open(store.walPath, mode: .readOnly)
        let scan = try WALScan.scan(wal, pageSize: store.pageSize)
        try #require(scan.commits.count >= 2)
        /// The codec of each page image of `commit`, by page number.
        func codecs(_ commit: WALCommitRecord) throws -> [PageNumber: UInt8] {
            var codecs: [PageNumber: UInt8] = [:]
            for frame in commit.frames where frame.kind == .page {
                let offset = frame.payloadOffset
                codecs[frame.page] = try wal.readExactly(2, at: offset, location: .offset(offset))[1]
            }
            return codecs
        }
        let large = try codecs(scan.commits[scan.commits.count - 2])
        var small = try codecs(scan.commits[scan.commits.count - 1])
        try wal.close()
        #expect(
            large.count > WriteTransaction.rawImagePageLimit && large.values.contains(PageCodecID.deflate.rawValue))
        #expect(small.count <= WriteTransaction.rawImagePageLimit)
        // The meta page, nearly all zeros, is deflated even in a small commit; the others are raw.
        #expect(small.removeValue(forKey: MetaPage.number) == PageCodecID.deflate.rawValue)
        #expect(!small.isEmpty && small.values.allSatisfy { $0 == PageCodecID.raw.rawValue }, "codecs \(small)")

        try store.checkpoint()
        // Every leaf of the tree is in the page file now, compressed, the changed one included.
        let stored = try POSIXFileSystem().open(store.path, mode: .readOnly)
        let entries = store.fileLock.withReadLock { store.map.filter(\.isPresent) }
        let pageFileCodecs = try entries.map {
            try stored.readExactly(2, at: $0.offset, location: .offset($0.offset))[1]
        }
        try stored.close()
        #expect(
            pageFileCodecs.filter { $0 == PageCodecID.raw.rawValue }.count <= 1,
            "only a page that does not compress may stay raw: \(pageFileCodecs)")
        let afterCheckpoint = try store.read { tx in try tx.tree("t")!.get(Self.key(5)) }
        #expect(afterCheckpoint == Array("changed".utf8))
        try store.close()
        let reopened = try Store.open(path: dir.path("raw"))
        let (five, six) = try reopened.read { tx in
            (try tx.tree("t")!.get(Self.key(5)), try tx.tree("t")!.get(Self.key(6)))
        }
        #expect(five == Array("changed".utf8))
        #expect(six == Self.value(6))
        try reopened.close()
        #expect(try StoreVerifier.verify(path: dir.path("raw")).problems.isEmpty)
    }

    @Test func smallCommitsLogNearlyEmptyPagesDeflated() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.path("sparse"), options: Self.options(threshold: 1 << 40))
        try store.write { tx in try tx.openOrCreateTree("t").put(Self.key(1), Self.value(1)) }
        try store.write { tx in try tx.tree("t")!.put(Self.key(2), Self.value(2)) }
        let wal = try POSIXFileSystem().open(store.walPath, mode: .readOnly)
        let scan = try WALScan.scan(wal, pageSize: store.pageSize)
        let last = try #require(scan.commits.last)
        var bytes = 0
        for frame in last.frames where frame.kind == .page {
            let offset = frame.payloadOffset
            #expect(try wal.readExactly(2, at: offset, location: .offset(offset))[1] == PageCodecID.deflate.rawValue)
            bytes += Int(frame.payloadLength)
        }
        try wal.close()
        // The meta page and a leaf holding two records: a few hundred bytes, not two pages.
        #expect(bytes < 1_024, "\(bytes) bytes of images")
        try store.close()
        let reopened = try Store.open(path: dir.path("sparse"))
        #expect(try reopened.read { tx in try tx.tree("t")!.get(Self.key(2)) } == Self.value(2))
        try reopened.close()
        #expect(try StoreVerifier.verify(path: dir.path("sparse")).problems.isEmpty)
    }

    @Test func checkpointRefusesADamagedRawImage() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.path("damaged"), options: Self.options(threshold: 1 << 40))
        // Enough records that the leaf is not sparse: a small commit logs it raw (R5).
        try store.write { tx in
            let t = try tx.openOrCreateTree("t")
            for i in 1...40 { try t.put(Self.key(i), Self.value(i)) }
        }
        try store.checkpoint()
        try store.write { tx in try tx.tree("t")!.put(Self.key(2), Self.value(2)) }
        // Flip one byte inside the small commit's first raw image, behind the store's back.
        let scan = try { () throws -> WALScanResult in
            let wal = try POSIXFileSystem().open(store.walPath, mode: .readOnly)
            defer { try? wal.close() }
            return try WALScan.scan(wal, pageSize: store.pageSize)
        }()
        // (The meta page's image is deflated even in a small commit: the first raw one is the leaf's.)
        let frame = try #require(scan.commits.last?.frames.first { $0.kind == .page && $0.page != MetaPage.number })
        let handle = try #require(FileHandle(forUpdatingAtPath: store.walPath))
        let target = frame.payloadOffset + UInt64(PageImage.headerSize) + 100
        try handle.seek(toOffset: target)
        let byte = try #require(try handle.read(upToCount: 1)).first!
        try handle.seek(toOffset: target)
        try handle.write(contentsOf: [byte ^ 0x5A])
        try handle.close()

        #expect {
            try store.checkpoint()
        } throws: { error in
            guard case StoreError.corruption(let path, .page(let page), let detail) = error else { return false }
            return path == store.walPath && page == frame.page && detail.contains("checksum")
        }
        try? store.close()
    }
}
