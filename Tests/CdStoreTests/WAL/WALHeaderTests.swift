import Testing
@testable import CdStore

@Suite struct WALHeaderTests {
    /// Regression: the decoder read the salt from offset 20 (inside the generation) instead of 24,
    /// so every frame looked like another generation's and recovery dropped every WAL commit.
    @Test func headerRoundTripsSaltAndGeneration() throws {
        let h = WALLayout.Header(pageSize: 4096, generation: 0x0102_0304_0506_0708, salt: 0xA1B2_C3D4)
        #expect(try WALLayout.Header.decode(h.encoded()).get() == h)
    }

    @Test func recoveryKeepsCommitsLeftInTheWAL() throws {
        let files = try TestStores.build(.wal)
        let fs = InMemoryFileSystem(files: files.files)
        var options = StoreOptions(fileSystem: fs)
        options.durability = .off
        let store = try Store.open(path: StoreFiles.path, options: options)
        defer { try? store.close() }
        #expect(try store.read { try $0.tree("delta")?.count() } == 60)
        #expect(try store.read { try $0.tree("alpha")?.count() } == 820)
    }
}
