// Opening a store derives its free space from the extents its map references (FreeSpace.derive):
// damage is still reported by name at open, and the derivation gives the same free space whatever
// the order of the extents it is given.

import Testing
@testable import CdStore

@Suite struct StoreOpenFreeSpaceTests {
    /// Opens `files` read-write in memory.
    private func open(_ files: StoreFiles) throws -> Store {
        var options = StoreOptions(fileSystem: InMemoryFileSystem(files: files.files))
        options.durability = .off
        return try Store.open(path: StoreFiles.path, options: options)
    }

    @Test func pagesSharingAnExtentAreCorruptionNamingBothPages() throws {
        var files = try TestStores.build(.checkpointed)
        var offset: UInt64 = 0
        try VerifyHostileInputTests.rewriteChunk0(&files) { entries in
            entries[5].offset = entries[6].offset  // two pages share one extent
            offset = entries[6].offset
        }
        do {
            let store = try open(files)
            try store.close()
            Issue.record("a map with two pages in one extent opened")
        } catch let StoreError.corruption(_, location, detail) {
            #expect(location == .pageMap(detail: "extents"))
            #expect(detail.contains("page 5 at offset \(offset)") && detail.contains("page 6 at offset \(offset)"))
            #expect(detail.contains("overlaps"), "\(detail)")
        }
    }

    @Test func anExtentPastTheDataEndIsNamed() throws {
        let used = [
            UsedExtent(start: FileHeader.dataStart, length: 64, owner: .mapChunk(0)),
            UsedExtent(start: FileHeader.dataStart + 4096, length: 8192, owner: .page(7)),
        ]
        switch FreeSpace.derive(used: used, dataEnd: FileHeader.dataStart + 8192) {
        case .success: Issue.record("an extent past the data end was accepted")
        case let .failure(why):
            #expect(
                why.text == "page 7 at offset \(FileHeader.dataStart + 4096) ends past the data end "
                    + "\(FileHeader.dataStart + 8192)")
        }
    }

    @Test func freeSpaceDoesNotDependOnTheOrderOfTheExtents() throws {
        let granule = PageMapLayout.granule
        let start = FileHeader.dataStart
        // Used extents with holes of 1, 2 and 3 granules between them.
        let sorted = [
            UsedExtent(start: start, length: granule, owner: .page(1)),
            UsedExtent(start: start + 2 * granule, length: granule, owner: .page(2)),
            UsedExtent(start: start + 5 * granule, length: 2 * granule, owner: .mapChunk(0)),
            UsedExtent(start: start + 10 * granule, length: granule, owner: .mapDirectory),
        ]
        let end = start + 11 * granule
        let inOrder = try FreeSpace.derive(used: sorted, dataEnd: end).get()
        let shuffled = try FreeSpace.derive(used: [sorted[2], sorted[0], sorted[3], sorted[1]], dataEnd: end).get()
        #expect(
            inOrder.byStart == [
                start + granule: granule, start + 3 * granule: 2 * granule,
                start + 7 * granule: 3 * granule,
            ])
        #expect(shuffled.byStart == inOrder.byStart)
        #expect(shuffled.freeBytes == 6 * granule && shuffled.dataEnd == end)
    }
}
