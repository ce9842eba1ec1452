@testable import CdFaultSupport
import Foundation
import Testing
@testable import CdStore

/// The structure mutator's field catalogue, docs/FORMAT.md and docs/TESTING.md cannot drift apart:
/// every row of every OFFSET/SIZE table of the engine's format has a catalogue entry and every entry
/// a row (or, for the two structures FORMAT.md describes in prose, a heading it names), TESTING.md
/// lists exactly the catalogue, and the layout the mutator parses agrees with the engine's decoders.
@Suite struct StoreFieldCatalogueTests {
    static func document(_ name: String) throws -> String {
        try String(
            contentsOf: fixturesDirectory().deletingLastPathComponent().appendingPathComponent("docs/\(name)"),
            encoding: .utf8)
    }

    /// (table title, OFFSET, SIZE) of every row of every OFFSET/SIZE/DESCRIPTION table in the
    /// engine part of FORMAT.md (before the object store's trees). A table's title is the nearest
    /// heading or bold line above it.
    static func formatRows() throws -> Set<[String]> {
        let text = try document("FORMAT.md")
        let engine = text.components(separatedBy: "## The object store's trees").first ?? text
        var rows = Set<[String]>()
        var title = "", inTable = false
        for line in engine.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("#") {
                title = line.drop { $0 == "#" || $0 == " " }.components(separatedBy: " — ").first ?? ""
            } else if line.hasPrefix("**"), let end = line.dropFirst(2).range(of: "**") {
                title = String(line.dropFirst(2)[..<end.lowerBound])
            }
            if line.hasPrefix("| OFFSET | SIZE |") { inTable = true; continue }
            guard inTable else { continue }
            guard line.hasPrefix("|") else { inTable = false; continue }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count >= 4, !cells[1].allSatisfy({ $0 == "-" || $0 == ":" }) else { continue }
            rows.insert([title, cells[1], cells[2]])
        }
        return rows
    }

    @Test func everyFormatTableRowHasAMutatorEntryAndEveryEntryARow() throws {
        let rows = try Self.formatRows()
        #expect(rows.count > 80, "FORMAT.md's tables were not found (\(rows.count) rows)")
        let entries = Set(
            StoreFieldCatalogue.all.compactMap { spec in spec.docOffset.map { [spec.table, $0, spec.docSize ?? ""] } })
        for row in rows.subtracting(entries).sorted(by: { $0.joined() < $1.joined() }) {
            Issue.record("FORMAT.md row \(row) has no entry in StoreFieldCatalogue")
        }
        for entry in entries.subtracting(rows).sorted(by: { $0.joined() < $1.joined() }) {
            Issue.record("StoreFieldCatalogue entry \(entry) matches no FORMAT.md row")
        }
        let format = try Self.document("FORMAT.md")
        for spec in StoreFieldCatalogue.all where spec.docOffset == nil {
            #expect(format.contains(spec.table), "prose structure \"\(spec.table)\" is not named in FORMAT.md")
        }
        #expect(
            Set(StoreFieldCatalogue.all.map(\.name)).count == StoreFieldCatalogue.all.count,
            "field names must be unique")
    }

    /// The shared file's table (word | field) and the shared-file campaign's fields agree.
    @Test func everySharedFileRowHasACampaignFieldAndEveryFieldARow() throws {
        let text = try Self.document("FORMAT.md")
        let section =
            text.components(separatedBy: "## The shared file").dropFirst().first?
            .components(separatedBy: "\n## ").first ?? ""
        var rows = Set<String>()
        var inTable = false
        for line in section.split(separator: "\n").map(String.init) {
            if line.hasPrefix("| word | field |") { inTable = true; continue }
            guard inTable else { continue }
            guard line.hasPrefix("|") else { break }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count >= 3, !cells[1].allSatisfy({ $0 == "-" }) else { continue }
            rows.insert(cells[1])
        }
        #expect(rows.count == 13, "FORMAT.md's shared-file table was not found (\(rows.count) rows)")
        let fields = Set(SharedFileCatalogue.all.map(\.docWord))
        for row in rows.subtracting(fields).sorted() {
            Issue.record("FORMAT.md shared-file row \(row) has no field in SharedFileCatalogue")
        }
        for field in fields.subtracting(rows).sorted() {
            Issue.record("SharedFileCatalogue names row \(field), which FORMAT.md's shared-file table lacks")
        }
    }

    @Test func testingDocumentListsExactlyTheCatalogue() throws {
        let text = try Self.document("TESTING.md")
        let expected = StoreFieldCatalogue.markdownTable()
        #expect(
            text.contains(expected),
            "docs/TESTING.md's field list differs from the catalogue; it should read:\n\(expected)")
    }

    @Test func layoutAgreesWithTheEngineDecoders() throws {
        for store in CampaignStore.allCases {
            let files = try store.make()
            let layout = StoreLayout(files)
            let header = try #require(layout.activeHeader)
            guard case .success(let h) = FileHeader.decode(Array(files.pageFile[header..<(header + FileHeader.size)]))
            else {
                Issue.record("\(store): the engine rejects the active header"); continue
            }
            #expect(layout.validHeaders.count == 2 || store == .wal, "\(store): both header copies should be valid")
            #expect(layout.pageSize == Int(h.pageSize))
            #expect(
                layout.directory?.offset == Int(h.directoryOffset) && layout.directory?.length == Int(h.directoryLength)
            )
            #expect(layout.chunks.count == Int(h.chunkCount))
            for (i, chunk) in layout.chunks.enumerated() {
                let bytes = Array(files.pageFile[chunk.offset..<(chunk.offset + chunk.length)])
                let count = (chunk.length - PageMapLayout.chunkHeaderSize) / PageMapLayout.entrySize
                guard
                    case .success(let entries) = PageMapLayout.decodeChunk(
                        bytes, index: UInt32(i), expectedCount: count)
                else {
                    Issue.record("\(store): the engine rejects chunk \(i)"); continue
                }
                let mapped = layout.images.filter { if case .pageFile = $0.place { true } else { false } }
                #expect(
                    mapped.count == entries.filter(\.isPresent).count,
                    "\(store): every present map entry is an image of the layout")
            }
            let pool = PageDecompressorPool()
            for image in layout.images {
                let (bytes, offset, length) = layout.imageBytes(image)
                let decoded = bytes.withUnsafeBytes { raw in
                    PageImage.decode(
                        UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + length)]),
                        expected: PageNumber(image.page),
                        expectedCommit: nil, pageSize: layout.pageSize, pool: pool, pages: nil)
                }
                guard case .success(let page) = decoded else {
                    Issue.record("\(store): page \(image.page) does not decode"); continue
                }
                #expect(image.decoded == Array(page.bytes), "\(store): page \(image.page) decodes differently")
            }
            if store == .wal {
                guard case .success = WALLayout.Header.decode(Array(files.wal[0..<WALLayout.headerSize])) else {
                    Issue.record("the engine rejects the WAL header"); continue
                }
                #expect(
                    layout.frames.filter { $0.kind == WALLayout.FrameKind.commit.rawValue }.count == 3,
                    "three commits in the WAL")
            }
            #expect(
                layout.images.contains { $0.codec == 1 } && layout.images.contains { $0.codec == 0 }
                    || store == .checkpointed,
                "\(store): both codecs should occur")
        }
    }

    /// The mutator recomputes every checksum: an unmutated value written back yields the same files,
    /// and after any mutation the engine's own checks find every CRC right.
    @Test func mutationsKeepEveryChecksumRight() throws {
        let campaign = try StructureCampaign(full: false)
        for subject in campaign.subjects {
            let layout = subject.layout
            for site in layout.sites() where site.spec.width > 0 && site.spec.role != .checksum {
                let same = layout.apply(StoreMutation(site: site, value: .integer(site.current)))
                if case .page = site.place { continue }  // re-encoding may compress differently
                #expect(same == layout.files, "\(subject.store): writing back \(site.id) changed the files")
            }
        }
        // A mutation inside a logical page leaves every structure of the files in place (the
        // image may move): parsed again, every checksum the layout reaches is right.
        for index in campaign.cases.indices {
            guard case .page = campaign.cases[index].mutation.site.place else { continue }
            let files = campaign.files(of: index)
            let layout = StoreLayout(files)
            #expect(
                layout.validHeaders == campaign.subject(campaign.cases[index].store).layout.validHeaders,
                "\(campaign.cases[index].id): a header copy lost its CRC")
            #expect(layout.resealed() == files, "\(campaign.cases[index].id): a checksum is wrong after the mutation")
            #expect(
                layout.images.allSatisfy { $0.decoded != nil },
                "\(campaign.cases[index].id): an image no longer decodes")
            // The engine agrees: its verifier finds no checksum wrong.
            let options = VerifierOptions(
                fileSystem: InMemoryFileSystem(files: ["/m": files.pageFile, "/m-wal": files.wal]))
            let report = try StoreVerifier.verify(path: "/m", options: options)
            for problem in report.problems where problem.message.contains("checksum") {
                Issue.record("\(campaign.cases[index].id): \(problem)")
            }
        }
    }
}
