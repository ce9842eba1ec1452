// The structure campaign's cases: every (field site × hostile value) of the campaign stores.
//
// The short form (`make test`) takes, per store, each catalogued field at up to two sites (its
// first and last place: the two header copies, the first and last map entry, the page-file and
// the WAL image of a page, …) and cells first/middle/last; the full form
// (`CADMIUM_STRUCTURE_FULL=1`) takes every site and every cell. Both try every hostile value.

import CdStore

/// One case: a store and one mutation of it.
public struct StructureCase: Sendable {
    public var store: CampaignStore
    public var mutation: StoreMutation
    public var id: String { "\(store.rawValue): \(mutation)" }
}

public struct StructureCampaign {
    public struct Subject {
        public var store: CampaignStore
        public var layout: StoreLayout
        public var view: TreeView
    }

    public let subjects: [Subject]
    public let cases: [StructureCase]

    public init(full: Bool) throws {
        var subjects: [Subject] = []
        var cases: [StructureCase] = []
        for store in CampaignStore.allCases {
            let files = try store.make()
            let layout = StoreLayout(files)
            subjects.append(Subject(store: store, layout: layout, view: try StructureCaseRunner.view(of: files)))
            for site in Self.select(layout.sites(cellsPerPage: full ? nil : 3), perField: full ? nil : 2) {
                cases += site.values.map { StructureCase(store: store, mutation: StoreMutation(site: site, value: $0)) }
            }
        }
        self.subjects = subjects
        self.cases = cases
    }

    /// The subject of `store`.
    public func subject(_ store: CampaignStore) -> Subject { subjects.first { $0.store == store }! }

    /// The files of case `index`.
    public func files(of index: Int) -> StoreFuzzInput {
        let c = cases[index]
        return subject(c.store).layout.apply(c.mutation)
    }

    /// Up to `perField` sites of each (field, file): the first and the last.
    static func select(_ sites: [StoreFieldSite], perField: Int?) -> [StoreFieldSite] {
        guard let perField else { return sites }
        var groups: [String: [Int]] = [:]
        for (i, s) in sites.enumerated() { groups["\(s.spec.name)|\(s.inWAL)", default: []].append(i) }
        var keep = Set<Int>()
        for indices in groups.values {
            keep.insert(indices[0])
            if perField > 1 { keep.insert(indices[indices.count - 1]) }
        }
        return sites.indices.filter { keep.contains($0) }.map { sites[$0] }
    }
}
