import Foundation
import Testing
@testable import CdStore

@Suite struct StoreVerifyTests {
    @Test(arguments: TestStoreKind.allCases)
    func cleanStoreHasNoFindings(_ kind: TestStoreKind) throws {
        let files = try TestStores.build(kind)
        let report = try files.verify()
        #expect(report.problems.isEmpty, "\(report.problems.prefix(10))")
        let s = report.summary
        #expect(s.pageSize == TestStores.pageSize)
        #expect(
            s.trees.map(\.name)
                == (kind == .wal
                    ? ["(catalog)", "alpha", "blobs", "delta", "gamma"] : ["(catalog)", "alpha", "blobs", "gamma"]))
        #expect(s.trees.first { $0.name == "alpha" }!.depth >= 2)
        #expect(s.trees.first { $0.name == "alpha" }!.entries == (kind == .wal ? 820 : 700))
        #expect((s.pagesByType["overflow"] ?? 0) > 0)
        #expect(s.freePages > 0)
        #expect(s.freeBytes > 0)
        if kind == .wal {
            #expect(s.wal?.commitsToApply == 3)
            #expect(s.lastCommit! > s.pageFileCommit!)
        }
        if kind == .raw { #expect(s.compressionRatio < 1) } else { #expect(s.compressionRatio > 1) }
    }

    @Test func verifyLeavesFilesByteIdenticalOnDisk() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cd-verify-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let files = try TestStores.build(.wal)
        let path = dir.appendingPathComponent("s.cdstore").path
        try Data(files.pageFile).write(to: URL(fileURLWithPath: path))
        try Data(files.wal).write(to: URL(fileURLWithPath: path + "-wal"))
        let before = try [path, path + "-wal"].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        let report = try StoreVerifier.verify(path: path)
        #expect(report.problems.isEmpty)
        let after = try [path, path + "-wal"].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        #expect(before == after)
        #expect(Checksum.crc32(Array(before[0])) == Checksum.crc32(Array(after[0])))
    }

    @Test func storeOpenAloneForWritingIsReportedAsLocked() throws {
        let fs = InMemoryFileSystem(files: try TestStores.build(.checkpointed).files)
        var options = StoreOptions(fileSystem: fs)
        options.durability = .off
        options.sharing = .exclusive
        let store = try Store.open(path: StoreFiles.path, options: options)
        defer { try? store.close() }
        #expect(throws: StoreError.locked(path: StoreFiles.path)) {
            try StoreVerifier.verify(path: StoreFiles.path, options: VerifierOptions(fileSystem: fs))
        }
    }

    @Test func aStoreOtherProcessesHaveOpenIsVerifiedBesideThem() throws {
        let fs = InMemoryFileSystem(files: try TestStores.build(.checkpointed).files)
        var options = StoreOptions(fileSystem: fs)
        options.durability = .off
        let store = try Store.open(path: StoreFiles.path, options: options)
        defer { try? store.close() }
        // Commits in the WAL and a reader holding a snapshot: the verifier takes the writer lock
        // and reads the files as they stand, and the store goes on afterwards.
        try store.write { tx in try tx.openOrCreateTree("extra").put([1], [2]) }
        let reader = try store.beginRead()
        let report = try StoreVerifier.verify(path: StoreFiles.path, options: VerifierOptions(fileSystem: fs))
        #expect(report.isClean, "\(report.problems.prefix(3))")
        #expect(try reader.tree("extra")?.get([1]) == [2])
        reader.end()
        try store.write { tx in try tx.openOrCreateTree("extra").put([3], [4]) }
        #expect(try store.read { try $0.tree("extra")?.get([3]) } == [4])
    }

    @Test func missingAndForeignFilesAreOperationalErrors() throws {
        let fs = InMemoryFileSystem(files: ["junk": Array(repeating: 0x41, count: 9000), "empty": []])
        #expect(throws: StoreError.self) {
            try StoreVerifier.verify(path: "missing", options: VerifierOptions(fileSystem: fs))
        }
        #expect(throws: StoreError.notAStore(path: "junk", detail: "no Cadmium header magic")) {
            try StoreVerifier.verify(path: "junk", options: VerifierOptions(fileSystem: fs))
        }
        #expect(throws: StoreError.notAStore(path: "empty", detail: "the file is empty")) {
            try StoreVerifier.verify(path: "empty", options: VerifierOptions(fileSystem: fs))
        }
    }

    @Test func damagedImageProblemNamesTheTreeThatReferencesIt() throws {
        var files = try TestStores.build(.checkpointed)
        let anatomy = try StoreAnatomy(files)
        let leaf = try #require(anatomy.pageFilePages(.leaf, tree: "gamma").first)
        files.pageFile[anatomy.imageRange(leaf).lowerBound + 30] ^= 0x08
        let problems = try files.verify().problemsOnly
        #expect(problems.count == 1)
        #expect(
            problems.first?.location
                == VerificationLocation(
                    area: .page, page: leaf, tree: "gamma",
                    offset: UInt64(anatomy.imageRange(leaf).lowerBound)))
    }

    @Test func maxProblemsCapsTheListButCountsAll() throws {
        var files = try TestStores.build(.checkpointed)
        let anatomy = try StoreAnatomy(files)
        for p in anatomy.pageFilePages(.leaf) { files.pageFile[anatomy.imageRange(p).lowerBound + 30] ^= 0xFF }
        let report = try files.verify(maxProblems: 3)
        #expect(report.problems.count == 3)
        #expect(report.problemCount > 3)
        #expect(report.omittedCount == report.problemCount + report.noteCount - 3)
    }

    @Test func textAndJSONShowTheSameReport() throws {
        let report = try TestStores.build(.wal).verify()
        let text = report.text()
        #expect(text.contains("page size 4096"))
        #expect(text.contains("alpha"))
        #expect(text.contains("OK: no problems"))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let decoded = try JSONDecoder().decode(VerificationReport.self, from: encoder.encode(report))
        #expect(decoded.summary.trees == report.summary.trees)
        #expect(decoded.problemCount == 0)
    }
}
