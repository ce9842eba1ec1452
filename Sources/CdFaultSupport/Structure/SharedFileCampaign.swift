// The shared file's part of the structure campaign: every word of `NAME-shm` (docs/FORMAT.md, "The
// shared file") set to every hostile value its role calls for, while two stores have the file
// mapped (SharedFileCaseRunner). For the state words (3–7) the state's CRC (word 8) is recomputed,
// as the page-file campaign recomputes every checksum: the value then passes the first check a
// process makes and meets the deeper ones (the files must hold what the state names). A value the
// CRC rejects is the raw case `SharedFileHostileTests` covers.
//
// Each catalogued field names the FORMAT.md row it stands for (the table's first cell, verbatim),
// so `StoreFieldCatalogueTests` can check that every row has a field and every field a row.

import CdStore

/// One word of the shared file the campaign sets.
public struct SharedFileField: Sendable, Hashable {
    /// The field's name in case ids.
    public var name: String
    /// The word's index (64-bit words from the start of the file).
    public var word: Int
    /// What the word means, which decides its hostile values (`HostileValues`).
    public var role: FieldRole
    /// The first cell of its row in FORMAT.md's shared-file table, verbatim.
    public var docWord: String
    /// Values tried beside the role's (the slot of a live or absent process, a flipped salt).
    public var extra: [UInt64] = []

    /// Whether the word is one of the state's (its CRC is recomputed after the change).
    public var inState: Bool { SharedStateLayout.stateWords.contains(word) }
}

public enum SharedFileCatalogue {
    static let slotRow = "16 + 2*i*, 17 + 2*i*"

    /// Every field: the header and state words, the reserved words, and the two words of three
    /// slots — the mutating store's own, the other attached store's, and one nobody holds.
    public static let all: [SharedFileField] = [
        SharedFileField(name: "magic", word: SharedStateLayout.magicWord, role: .magic, docWord: "0"),
        SharedFileField(name: "version", word: SharedStateLayout.versionWord, role: .version, docWord: "1"),
        SharedFileField(name: "sequence", word: SharedStateLayout.sequenceWord, role: .sequence, docWord: "2"),
        SharedFileField(name: "written commit", word: 3, role: .commit, docWord: "3"),
        SharedFileField(name: "WAL end", word: 4, role: .fileOffset, docWord: "4"),
        SharedFileField(name: "chain CRC and salt", word: 5, role: .checksum, docWord: "5", extra: [1 << 32]),
        SharedFileField(name: "checkpoint sequence", word: 6, role: .sequence, docWord: "6"),
        SharedFileField(name: "header commit", word: 7, role: .commit, docWord: "7"),
        SharedFileField(name: "state CRC", word: SharedStateLayout.stateCRCWord, role: .checksum, docWord: "8"),
        SharedFileField(name: "durable commit", word: SharedStateLayout.durableWord, role: .commit, docWord: "9"),
        SharedFileField(
            name: "checkpoint running", word: SharedStateLayout.checkpointWord, role: .count, docWord: "10",
            extra: [2, 8, UInt64(SharedStateLayout.slotCount), UInt64(SharedStateLayout.slotCount + 1)]),
        SharedFileField(name: "reserved", word: 11, role: .reserved, docWord: "11–15"),
        SharedFileField(name: "own slot pid", word: SharedStateLayout.pidWord(slot: 0), role: .count, docWord: slotRow),
        SharedFileField(
            name: "own slot mark", word: SharedStateLayout.markWord(slot: 0), role: .commit, docWord: slotRow),
        SharedFileField(
            name: "other slot pid", word: SharedStateLayout.pidWord(slot: 1), role: .count, docWord: slotRow),
        SharedFileField(
            name: "other slot mark", word: SharedStateLayout.markWord(slot: 1), role: .commit, docWord: slotRow),
        SharedFileField(
            name: "dead slot mark", word: SharedStateLayout.markWord(slot: 7), role: .commit, docWord: slotRow),
    ]
}

/// One case: a word and the value written into it.
public struct SharedFileCase: Sendable {
    public var field: SharedFileField
    public var value: UInt64
    public var id: String {
        "shared file: \(field.name) (word \(field.word)) = \(HostileValue.integer(value))"
            + (field.inState ? " (state CRC recomputed)" : "")
    }
}

public enum SharedFileCampaign {
    /// Every (field × hostile value), the values chosen from the word's value in the runner's
    /// store before the change (so none is a no-op).
    public static func cases() throws -> [SharedFileCase] {
        let (words, walSize) = try SharedFileCaseRunner.wordsBeforeTheChange()
        return SharedFileCatalogue.all.flatMap { field in
            let spec = StoreFieldSpec(
                "The shared file", field.docWord, "8", field.name, field.role, at: field.word * 8, width: 8)
            let context = HostileContext(pageCount: 64, fileSize: walSize, pageSize: 4096)
            let current = words[field.word]
            var values = HostileValues.values(for: spec, current: current, context: context, region: [])
                .compactMap { v -> UInt64? in if case .integer(let n) = v { return n } else { return nil } }
            for e in field.extra {
                let v = field.role == .checksum ? current ^ e : e
                if v != current, !values.contains(v) { values.append(v) }
            }
            return values.map { SharedFileCase(field: field, value: $0) }
        }
    }
}
