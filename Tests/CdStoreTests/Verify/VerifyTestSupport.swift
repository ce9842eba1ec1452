// Stores for the verifier tests, built with the engine in memory, and a map of what lives where
// in their files (page types and owners, image extents, WAL frames) so that corruption cases can
// aim at one structure.

import Testing
@testable import CdStore

/// The files of a store: page file and WAL, by path.
struct StoreFiles {
    static let path = "store.cd"
    static let walPath = path + "-wal"
    var files: [String: [UInt8]]

    var pageFile: [UInt8] {
        get { files[Self.path] ?? [] }
        set { files[Self.path] = newValue }
    }
    var wal: [UInt8] {
        get { files[Self.walPath] ?? [] }
        set { files[Self.walPath] = newValue }
    }

    /// Verifies these files through a fresh in-memory file system.
    func verify(maxProblems: Int = 1000) throws -> VerificationReport {
        var options = VerifierOptions(fileSystem: InMemoryFileSystem(files: files))
        options.maxProblems = maxProblems
        return try StoreVerifier.verify(path: Self.path, options: options)
    }

    /// Opens the files with the engine (read-write), runs `body`, and returns the files after it,
    /// closed (checkpointed) or not.
    func editedWithEngine(close: Bool, _ body: (Store) throws -> Void) throws -> StoreFiles {
        let fs = InMemoryFileSystem(files: files)
        var options = StoreOptions(fileSystem: fs)
        options.durability = .off
        options.checkpointThresholdBytes = 1 << 40
        let store = try Store.open(path: Self.path, options: options)
        try body(store)
        if close { try store.close() }
        let result = StoreFiles(files: [
            Self.path: fs.contents(of: Self.path) ?? [], Self.walPath: fs.contents(of: Self.walPath) ?? [],
        ])
        if !close { try store.close() }
        return result
    }
}

/// The kinds of test store.
enum TestStoreKind: String, Codable, CaseIterable, Sendable {
    /// Closed: everything checkpointed into the page file, WAL empty.
    case checkpointed
    /// Checkpointed content plus several commits still in the WAL.
    case wal
    /// Like `checkpointed` with compression off: every image has the same length.
    case raw
}

enum TestStores {
    static let pageSize = 4096

    /// Builds a store of `kind`: trees "alpha" (depth 2), "blobs" (overflow chains) and "gamma"
    /// (half deleted), a dropped tree, several checkpoints (so the page file has free extents) and
    /// a non-empty free list.
    static func build(_ kind: TestStoreKind) throws -> StoreFiles {
        let fs = InMemoryFileSystem()
        var options = StoreOptions(fileSystem: fs)
        options.pageSize = pageSize
        options.durability = .off
        options.compressionLevel = kind == .raw ? 0 : 1
        options.checkpointThresholdBytes = 1 << 40
        let store = try Store.open(path: StoreFiles.path, options: options)
        try store.write { tx in
            let alpha = try tx.createTree("alpha")
            for i in 0..<700 { try alpha.put(key("alpha", i), patternValue(i, count: 30 + i % 50)) }
            let gamma = try tx.createTree("gamma")
            for i in 0..<400 { try gamma.put(key("gamma", i), patternValue(i, count: 60)) }
            let temp = try tx.createTree("temp")
            for i in 0..<150 { try temp.put(key("temp", i), patternValue(i, count: 40)) }
        }
        try store.checkpoint()
        try store.write { tx in
            let blobs = try tx.createTree("blobs")
            for i in 0..<8 { try blobs.put(key("blob", i), patternValue(i, count: 3000 + 2500 * i)) }
            try tx.dropTree("temp")
        }
        try store.checkpoint()
        try store.write { tx in
            let gamma = try tx.tree("gamma")!
            for i in stride(from: 0, to: 400, by: 3) { try gamma.delete(key("gamma", i)) }
            for i in stride(from: 1, to: 400, by: 3) { try gamma.delete(key("gamma", i)) }
        }
        if kind != .wal {
            try store.close()
            return StoreFiles(files: [
                StoreFiles.path: fs.contents(of: StoreFiles.path) ?? [],
                StoreFiles.walPath: fs.contents(of: StoreFiles.walPath) ?? [],
            ])
        }
        try store.checkpoint()
        try store.write { tx in
            let alpha = try tx.tree("alpha")!
            for i in 700..<820 { try alpha.put(key("alpha", i), patternValue(i, count: 40)) }
        }
        try store.write { tx in
            let blobs = try tx.tree("blobs")!
            try blobs.put(key("blob", 1), patternValue(99, count: 9000))
            try blobs.delete(key("blob", 2))
        }
        try store.write { tx in
            let delta = try tx.createTree("delta")
            for i in 0..<60 { try delta.put(key("delta", i), patternValue(i, count: 20)) }
        }
        let files = StoreFiles(files: [
            StoreFiles.path: fs.contents(of: StoreFiles.path) ?? [],
            StoreFiles.walPath: fs.contents(of: StoreFiles.walPath) ?? [],
        ])
        try store.close()
        return files
    }

    static func key(_ prefix: String, _ i: Int) -> [UInt8] {
        let digits = String(i)
        return Array((prefix + "-" + String(repeating: "0", count: max(0, 5 - digits.count)) + digits).utf8)
    }
}

/// Where things live in a store's files, read with the engine's own decoders.
struct StoreAnatomy {
    struct PageInfo { var type: PageType; var tree: String? }

    var header: FileHeader
    var activeSlot: Int
    var map: [MapEntry]
    var chunks: [ChunkLocation]
    var pages: [PageNumber: PageInfo] = [:]
    var trees: [String: BTree] = [:]
    var scan: WALScanResult?

    init(_ files: StoreFiles) throws {
        let fs = InMemoryFileSystem(files: files.files)
        let file = try fs.open(StoreFiles.path, mode: .readOnly)
        (header, activeSlot) = try Store.readHeader(file, size: try file.size())
        (map, chunks) = try Store.loadPageMap(file, header: header, fileSize: try file.size())
        if fs.fileExists(StoreFiles.walPath) {
            scan = try WALScan.scan(try fs.open(StoreFiles.walPath, mode: .readOnly), pageSize: Int(header.pageSize))
        }
        var options = StoreOptions(fileSystem: fs)
        options.readOnly = true
        let store = try Store.open(path: StoreFiles.path, options: options)
        defer { try? store.close() }
        try store.read { tx in
            pages[MetaPage.number] = PageInfo(type: .meta, tree: nil)
            let catalog = BTreeChecker.check(BTree(root: MetaPage.catalogRoot), in: tx)
            for (p, t) in catalog.pages { pages[p] = PageInfo(type: t, tree: "(catalog)") }
            for name in try tx.treeNames() {
                let tree = try tx.tree(name)!
                trees[name] = BTree(root: tree.root)
                for (p, t) in BTreeChecker.check(BTree(root: tree.root), in: tx).pages {
                    pages[p] = PageInfo(type: t, tree: name)
                }
            }
            guard case .success(let meta) = MetaPage.decode(try tx.page(MetaPage.number)) else { return }
            var trunk = meta.freeListHead
            while trunk != .none {
                pages[trunk] = PageInfo(type: .freeList, tree: nil)
                trunk = FreeListTrunk(page: try tx.page(trunk)).next
            }
        }
    }

    /// Pages of `type` that have an image in the page file (not superseded by the WAL), sorted.
    func pageFilePages(_ type: PageType, tree: String? = nil) -> [PageNumber] {
        pages.filter { $0.value.type == type && (tree == nil || $0.value.tree == tree) }
            .map(\.key).filter { Int($0.rawValue) < map.count && map[Int($0.rawValue)].isPresent && !inWAL($0) }
            .sorted()
    }

    func inWAL(_ page: PageNumber) -> Bool {
        scan?.commits.contains { c in c.commit > header.commitSequence && c.frames.contains { $0.page == page } }
            ?? false
    }

    /// The byte range of page `p`'s image in the page file.
    func imageRange(_ p: PageNumber) -> Range<Int> {
        let e = map[Int(p.rawValue)]
        return Int(e.offset)..<Int(e.offset) + Int(e.length)
    }
}

extension VerificationReport {
    var problemsOnly: [VerificationProblem] { problems.filter { $0.severity == .problem } }
    var notesOnly: [VerificationProblem] { problems.filter { $0.severity == .note } }
}
