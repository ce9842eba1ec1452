// The small stores the structure campaign mutates (4096-byte pages, a dozen pages each), built the
// same way every time (values from a fixed SplitMix64 seed; only the WAL salt is random):
//
//   wal          — checkpointed trees, then three commits still in the WAL: a large one (more than
//                  8 pages, so its images are deflated) and two small ones (raw images), one of
//                  which frees pages (a tombstone frame).
//   checkpointed — two trees, one with a branch root over several leaves; closed (checkpointed).
//   freeOverflow — overflow chains (one incompressible, stored raw in the page file), and pages
//                  freed by deletes and a dropped tree: a free-list trunk with entries; closed.

import CdStore
import CdStoreTesting

/// One of the campaign's stores.
public enum CampaignStore: String, CaseIterable, Sendable {
    case wal
    case checkpointed
    case freeOverflow = "free-overflow"

    static let path = "/campaign.cdstore"

    /// The store's page file and WAL.
    public func make() throws -> StoreFuzzInput {
        let fs = InMemoryFileSystem()
        var options = StoreOptions(fileSystem: fs)
        options.pageSize = 4096
        options.durability = .off
        options.checkpointThresholdBytes = 1 << 30
        var rng = SplitMix64(seed: 0xCAD_0001)
        func bytes(_ n: Int, random: Bool = false, fill: UInt8 = 0x41) -> [UInt8] {
            random ? (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) } : [UInt8](repeating: fill, count: n)
        }
        func key(_ i: Int) -> [UInt8] { Array("key-\(1000 + i)".utf8) }
        var store = try Store.open(path: Self.path, options: options)
        switch self {
        case .checkpointed:
            try store.write { tx in
                let alpha = try tx.createTree("alpha")
                for i in 0..<150 { try alpha.put(key(i), bytes(24, fill: UInt8(i & 0x7F))) }
                let beta = try tx.createTree("beta")
                for i in 0..<5 { try beta.put(key(i), bytes(10)) }
            }
        case .freeOverflow:
            try store.write { tx in
                let big = try tx.createTree("big")
                try big.put(Array("noise".utf8), bytes(6000, random: true))
                try big.put(Array("text".utf8), bytes(9000, fill: 0x54))
                let small = try tx.createTree("small")
                for i in 0..<200 { try small.put(key(i), bytes(20)) }
                let doomed = try tx.createTree("doomed")
                for i in 0..<60 { try doomed.put(key(i), bytes(40)) }
            }
            try store.write { tx in
                let small = try tx.tree("small")!
                for i in 0..<170 { _ = try small.delete(key(i)) }
                try tx.dropTree("doomed")
                _ = try tx.tree("big")!.delete(Array("text".utf8))
            }
        case .wal:
            try store.write { tx in
                let alpha = try tx.createTree("alpha")
                for i in 0..<40 { try alpha.put(key(i), bytes(30)) }
            }
            try store.close()
            store = try Store.open(path: Self.path, options: options)
            try store.write { tx in
                let late = try tx.createTree("late")
                try late.put(Array("long".utf8), bytes(40_000, fill: 0x4C))
                for i in 0..<60 { try late.put(key(i), bytes(50)) }
            }
            try store.write { tx in try tx.tree("alpha")!.put(key(7), bytes(12, fill: 0x37)) }
            try store.write { tx in _ = try tx.tree("late")!.delete(Array("long".utf8)) }
            // The commits stay in the WAL: copy the files as a crash would leave them.
            let files = StoreFuzzInput(
                pageFile: fs.contents(of: Self.path) ?? [], wal: fs.contents(of: Self.path + "-wal") ?? [])
            try store.close()
            return files
        }
        try store.close()
        return StoreFuzzInput(
            pageFile: fs.contents(of: Self.path) ?? [], wal: fs.contents(of: Self.path + "-wal") ?? [])
    }
}
