// Testing stored records against one fetch: the compiled residual per entity code, the overlay's
// touched objects, the sort keys, and what is kept of a match. The executor's access paths all
// feed candidates through a `RecordMatcher`; a read on several threads (QueryExecutor+Parallel)
// gives each piece a matcher of its own over the same `MatchRules`.
//
// Invariants:
//  RK1. `MatchRules` does not change after it is made. Everything in it is a value or an
//       immutable object (the layout, the compiled programs' captured constants), so any number of
//       threads may read it at once; only the reader (the engine transaction, the overlay) is
//       confined to the fetch's thread.
//  RK2. `isShareable` is true only when no test reaches the reader: no overlay, every program
//       compiled without an interpreter fallback (CompiledPredicate CQ1: only a fallback decodes
//       the candidate into a `RecordObject` that reads through the reader), and every sort key an
//       attribute of each entity the fetch covers (a key path through a relationship reads other
//       records). Only such rules are handed to other threads.
//  RK3. A matcher's matches are in the order it was given candidates; counted matches and kept
//       matches follow Q1's filter exactly as the one-thread executor did.

import CdStore

/// Where a record tree lives, for the corruption errors a damaged record gives.
struct RecordTreeLocation: Sendable {
    let path: String
    let root: PageNumber
    let name: String

    init(_ tree: Tree, path: String) {
        self.path = path
        self.root = tree.root
        self.name = tree.name
    }

    /// The error `StoredObjects.corruption` gives for this tree.
    func corruption(_ detail: String) -> CdError {
        .store(.corruption(path: path, location: .page(root), detail: "tree \(name): \(detail)"))
    }
}

/// One fetch's rules for its stored candidates (RK1). `@unchecked Sendable`: the compiled
/// programs are closures the type system cannot see into; RK1 and RK2 say when sharing is safe.
final class MatchRules: @unchecked Sendable {
    let layout: StoreLayout
    /// Which entity codes the fetch covers.
    let wanted: [Bool]
    /// The residual compiled per entity code (CQ2); empty without a residual.
    let programs: [CompiledPredicate?]
    /// The one program when the fetch covers one entity code.
    let soleProgram: CompiledPredicate?
    let hasResidual: Bool
    /// The overlay's touched objects (Q2); nil without an overlay.
    let touched: Set<ObjectID>?
    let countOnly: Bool
    let stopAfter: Int?
    let keepRecords: Bool
    let sortPaths: [[String]]
    /// Held without counting: the executor holds the reader for the fetch; read only on the
    /// fetch's thread (RK2).
    unowned(unsafe) let reader: ObjectReader
    let location: RecordTreeLocation?
    /// Whether other threads may test candidates with these rules (RK2).
    let isShareable: Bool

    init(
        layout: StoreLayout, wanted: [Bool], residual: CdPredicate?, reader: ObjectReader, countOnly: Bool,
        stopAfter: Int?, keepRecords: Bool, sortPaths: [[String]], location: RecordTreeLocation?
    ) {
        self.layout = layout
        self.wanted = wanted
        let programs: [CompiledPredicate?] =
            residual.map { p in layout.byCode.map { wanted[$0.code] ? CompiledPredicate(p, entity: $0) : nil } } ?? []
        self.programs = programs
        // With one entity code (no sub-entities), its program is called directly.
        soleProgram = wanted.filter { $0 }.count == 1 ? programs.first { $0 != nil } ?? nil : nil
        hasResidual = residual != nil
        touched = reader.overlay == nil ? nil : reader.touched
        self.countOnly = countOnly
        self.stopAfter = stopAfter
        self.keepRecords = keepRecords
        self.sortPaths = sortPaths
        self.reader = reader
        self.location = location
        let covered = layout.byCode.filter { wanted[$0.code] }
        isShareable =
            reader.overlay == nil && programs.allSatisfy { ($0?.fallbacks ?? 0) == 0 }
            && sortPaths.allSatisfy { path in
                path.count == 1 && covered.allSatisfy { $0.attributeSlots[path[0]] != nil }
            }
    }
}

/// Tests candidates against `MatchRules` and collects the matches (or counts them). One per
/// thread (RK3).
struct RecordMatcher {
    let rules: MatchRules
    private(set) var matches: [QueryMatch] = []
    private(set) var counted = 0
    /// One array reused for every lent candidate: while no match keeps the previous record it is
    /// uniquely referenced, so refilling it copies the lent bytes without allocating.
    private var scratch: [UInt8] = []

    init(rules: MatchRules) { self.rules = rules }

    /// Tests one stored record; false stops the read. `expected` is the ID the access path read
    /// it for (a key holding another entity is skipped).
    mutating func consider(_ pk: Int64, _ bytes: [UInt8], expected: ObjectID? = nil) throws -> Bool {
        let rules = self.rules
        do {
            var candidate = PredicateCandidate(
                record: try EncodedRecord(bytes, layout: rules.layout), primaryKey: pk, reader: rules.reader)
            let code = candidate.record.entity.code
            guard rules.wanted[code] else { return true }
            if let expected, expected.entityCode != candidate.record.entity.nameCode { return true }
            if let touched = rules.touched, touched.contains(expected ?? candidate.record.entity.objectID(pk)) {
                return true
            }
            if let soleProgram = rules.soleProgram {
                guard try soleProgram.evaluate(&candidate) else { return true }
            } else if rules.hasResidual {
                guard try rules.programs[code]?.evaluate(&candidate) ?? true else { return true }
            }
            if rules.countOnly {
                counted += 1
                if let stopAfter = rules.stopAfter, counted >= stopAfter { return false }
                return true
            }
            // The ID is made for matches only.
            let id = expected ?? candidate.record.entity.objectID(pk)
            matches.append(
                QueryMatch(
                    id: id, source: rules.keepRecords ? .stored(candidate.record) : nil,
                    sortKey: try sortKeys(candidate.record)))
            if let stopAfter = rules.stopAfter, matches.count >= stopAfter { return false }
        } catch let e as RecordDecodingError {
            guard let location = rules.location else { throw e }
            throw location.corruption("record \(pk): \(e.message)")
        }
        return true
    }

    /// `consider` for bytes lent by the tree (valid only during this call, BL1): copied into
    /// `scratch`, so a kept match holds its own array (the next refill then allocates anew).
    mutating func consider(_ pk: Int64, lent value: UnsafeRawBufferPointer, expected: ObjectID? = nil) throws -> Bool {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: value)
        return try consider(pk, scratch, expected: expected)
    }

    /// Appends the matches and counts of pieces read after everything this matcher holds.
    mutating func append(_ part: MatchPart) {
        matches.append(contentsOf: part.matches)
        counted += part.counted
    }

    /// The matches, leaving the matcher without them (so that the caller's array is not shared).
    mutating func takeMatches() -> [QueryMatch] {
        defer { matches = [] }
        return matches
    }

    /// What this matcher found, to hand back from a piece's thread.
    var part: MatchPart { MatchPart(matches: matches, counted: counted) }

    /// The sort key of a stored record: attributes of the record itself are read alone; a path
    /// through a relationship decodes the record and follows it as `ObjectReader.value` does.
    private func sortKeys(_ record: EncodedRecord) throws -> [CdValue] {
        let paths = rules.sortPaths
        if paths.isEmpty { return [] }
        var full: Record?
        return try paths.map { path in
            if path.count == 1, let slot = record.entity.attributeSlots[path[0]] {
                return try record.value(ofAttribute: slot)
            }
            if full == nil { full = try RecordCodec.decode(record.bytes, layout: rules.layout) }
            return try rules.reader.value(of: full!, path: path)
        }
    }
}

/// The matches and count one piece of a parallel read found, in its candidates' order.
struct MatchPart: Sendable {
    var matches: [QueryMatch]
    var counted: Int
}
