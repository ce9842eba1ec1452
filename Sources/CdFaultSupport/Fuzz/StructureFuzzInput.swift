// The structure mode of the store fuzz targets: an input that starts with "CDSM" does not carry a
// store, it *chooses* mutations of a campaign store, which the structure mutator applies with
// every checksum recomputed (docs/TESTING.md, campaign 5b). libFuzzer's byte mutations of such an
// input walk over fields and hostile values instead of breaking checksums.
//
//   OFFSET  SIZE  DESCRIPTION
//   0       4     "CDSM"
//   4       1     campaign store (index into CampaignStore.allCases, modulo)
//   5       13·k  1–3 mutations, applied in turn, each to the layout the previous one left:
//                   u32 site index (modulo the sites), u8 choice, u64 raw value
//                   choice < 128: the site's hostile value number `choice` (modulo);
//                   else: the raw value (a region gets it as a fill byte)
//
// The WAL target uses only the WAL's sites, of the `wal` store.

import Foundation

public enum StructureFuzzInput {
    public static let magic: [UInt8] = Array("CDSM".utf8)
    static let mutationSize = 13

    /// The campaign stores and their layouts, built once per process.
    static let layouts: [StoreLayout] = CampaignStore.allCases.compactMap { try? StoreLayout($0.make()) }
    /// Their sites, and their WAL's sites: the first mutation of every input picks from these.
    static let baseSites: [[StoreFieldSite]] = layouts.map { $0.sites() }
    static let baseWALSites: [[StoreFieldSite]] = baseSites.map { $0.filter(\.inWAL) }

    /// The files an input chooses, or nil when it is not a structure input.
    public static func decode(_ input: [UInt8], walOnly: Bool = false) -> StoreFuzzInput? {
        guard input.count >= 5 + mutationSize, Array(input[0..<4]) == magic, !layouts.isEmpty else { return nil }
        let walStore = CampaignStore.allCases.firstIndex(of: .wal) ?? 0
        let store = walOnly ? walStore : Int(input[4]) % layouts.count
        var layout = layouts[store]
        var files = layout.files
        var at = 5
        while at + mutationSize <= input.count, at < 5 + 3 * mutationSize {
            let sites =
                at == 5 ? (walOnly ? baseWALSites : baseSites)[store] : layout.sites().filter { !walOnly || $0.inWAL }
            guard !sites.isEmpty else { break }
            let site = sites[Int(le(input, at, 4)!) % sites.count]
            let choice = input[at + 4], raw = le(input, at + 5, 8)!
            let value: HostileValue
            if choice < 128, !site.values.isEmpty {
                value = site.values[Int(choice) % site.values.count]
            } else {
                value =
                    site.spec.width > 0
                    ? .integer(raw & (site.spec.width == 8 ? .max : (1 << (8 * UInt64(site.spec.width))) - 1))
                    : .fill(UInt8(truncatingIfNeeded: raw))
            }
            files = layout.apply(StoreMutation(site: site, value: value))
            layout = StoreLayout(files)
            at += mutationSize
        }
        return files
    }

    /// Seed inputs: for each store (the `wal` store alone when `walOnly`), one mutation per
    /// `stride`-th site, first hostile value.
    public static func seeds(walOnly: Bool, count: Int = 24) -> [[UInt8]] {
        var seeds: [[UInt8]] = []
        for (index, layout) in layouts.enumerated() where !walOnly || CampaignStore.allCases[index] == .wal {
            let sites = layout.sites().filter { !walOnly || $0.inWAL }
            for n in stride(from: 0, to: sites.count, by: max(1, sites.count / count)) {
                var input = magic + [UInt8(index)]
                input +=
                    (0..<4).map { UInt8(truncatingIfNeeded: n >> (8 * $0)) } + [0] + [UInt8](repeating: 0, count: 8)
                seeds.append(input)
            }
        }
        return seeds
    }
}
