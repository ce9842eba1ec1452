// The recipes of the hostile-store regression fixtures (`Fixtures/hostile/store/`): each names a
// campaign store, one field site and the value the structure mutator writes there, every checksum
// recomputed. Each reproduces one cause of a trap, a runaway allocation or a silent loss that a
// crafted store once reached; `HostileStoreFixtureTests` regenerates the files with
// `CADMIUM_WRITE_FIXTURES=1`, otherwise checks they still hold what the recipe says and that
// opening, writing and verifying each ends in a StoreError or a clean result.

/// One fixture: `Fixtures/hostile/store/<name>.cdstore` (+ `-wal`).
public struct HostileStoreRecipe: Sendable, CustomStringConvertible {
    public var name: String
    public var store: CampaignStore
    /// The site's id in the unmutated store's layout (`StoreFieldSite.id`).
    public var siteID: String
    public var value: UInt64
    public var cause: String

    public var description: String { name }

    /// The recipes. Header sites name the active copy: the one written by the last checkpoint.
    public static let all: [HostileStoreRecipe] = [
        HostileStoreRecipe(
            name: "1-directory-offset-overflow", store: .checkpointed, siteID: "header@ACTIVE/directory offset",
            value: UInt64.max,
            cause: "header directory offset near UInt64.max: offset + length overflows in Store+Open"),
        HostileStoreRecipe(
            name: "2-header-commit-max-with-wal", store: .wal, siteID: "header@ACTIVE/commit sequence",
            value: UInt64.max,
            cause: "page-file commit UInt64.max while the WAL holds commits: next − 1 underflows in WALCheck"),
        HostileStoreRecipe(
            name: "3-checkpoint-sequence-max", store: .wal, siteID: "header@ACTIVE/checkpoint sequence",
            value: UInt64.max,
            cause: "checkpoint sequence UInt64.max: the recovery checkpoint's += 1 overflows"),
        HostileStoreRecipe(
            name: "4-free-count-zero", store: .freeOverflow, siteID: "page 1/free count", value: 0,
            cause: "meta free count 0 with a non-empty free list: the first commit's -= 1 underflows"),
        HostileStoreRecipe(
            name: "4-free-count-max", store: .checkpointed, siteID: "page 1/free count", value: UInt64(UInt32.max),
            cause: "meta free count UInt32.max with an empty free list: the first commit that frees a page overflows"),
        HostileStoreRecipe(
            name: "5-meta-page-count-huge", store: .checkpointed, siteID: "page 1/meta page count", value: 0x8000_0000,
            cause: "meta page count 0x80000000: the checkpoint re-encodes map chunks for billions of pages"),
        HostileStoreRecipe(
            name: "7-header-commit-zero", store: .checkpointed, siteID: "header@ACTIVE/commit sequence", value: 0,
            cause: "header commit 0: a writable open took the store for a new one and reformatted it"),
        // Found by the structure campaign (docs/TESTING.md): no trap, but acknowledged commits or
        // existing trees silently lost.
        HostileStoreRecipe(
            name: "8-header-commit-max-minus-one", store: .checkpointed, siteID: "header@ACTIVE/commit sequence",
            value: UInt64.max - 1,
            cause:
                "header commit UInt64.max − 1: CommitSequence.next wraps to 0 at the second commit; "
                + "both commits are gone after a reopen"
        ),
        HostileStoreRecipe(
            name: "9-meta-page-count-below-use", store: .checkpointed, siteID: "page 1/meta page count", value: 3,
            cause:
                "meta page count 3 while pages 3… are in use: "
                + "the writer allocates live pages and overwrites tree alpha"
        ),
        HostileStoreRecipe(
            name: "10-free-list-entry-live-page", store: .freeOverflow, siteID: "page 11/trunk entry 4/trunk entry",
            value: 3,
            cause: "a free-list entry naming a live page (3): the writer pops it and overwrites the tree that owns it"),
        HostileStoreRecipe(
            name: "11-branch-child-catalog-root", store: .checkpointed, siteID: "page 3/branch cell 0/child page",
            value: 2,
            cause: "a branch child naming the catalog's root (2): a commit to the catalog changes the tree"),
    ]

    /// The site the recipe names in `layout` (ACTIVE standing for the active header copy's offset).
    public func site(in layout: StoreLayout) -> StoreFieldSite? {
        let id = siteID.replacingOccurrences(of: "ACTIVE", with: "\(layout.activeHeader ?? -1)")
        return layout.sites(cellsPerPage: nil).first { $0.id == id }
    }

    /// The fixture's files, made from a fresh campaign store.
    public func make() throws -> StoreFuzzInput? {
        let layout = StoreLayout(try store.make())
        return site(in: layout).map { layout.apply(StoreMutation(site: $0, value: .integer(value))) }
    }
}
