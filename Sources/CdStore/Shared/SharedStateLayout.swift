// The layout of the shared file `NAME-shm` (docs/FORMAT.md, "The shared file"): 64-bit words,
// little-endian, read and written with atomic operations only.
//
//  word 0      magic "CdShm\0\0\1" (SharedStateLayout.magic)
//  word 1      version (1; the whole word, so the high bits are zero)
//  word 2      sequence: even while the state words are stable, odd while the writer changes them
//  words 3–7   the state (SharedStoreState): last written commit, WAL end after it, chain CRC
//              (low) | WAL salt (high), checkpoint sequence and commit of the page file header
//  word 8      CRC-32 of words 3–7 (their 40 little-endian bytes)
//  word 9      the last durable commit (readers see up to it; only ever raised)
//  word 10     1 + the slot of the process running a checkpoint, or 0
//  words 16…   64 process slots of two words: pid, and 1 + the oldest snapshot a reader of that
//              process holds (0: none)
//
// Lock bytes (SharedRegion SR3): 0 "attached" (shared by every open store, exclusive to the one
// that initialises the state), 1 the writer lock, 2 + i the ownership of slot i.
//
// Invariants:
//  SL1. Words 3–8 change only under the writer lock, inside an odd sequence; word 9 only rises.
//  SL2. A slot's words change only while its owner holds the slot's lock byte; a slot whose lock
//       byte nobody holds belongs to no live process, whatever its words say.

/// Offsets and constants of the shared file.
package enum SharedStateLayout {
    /// "CdShm", two zero bytes and 1, read as a little-endian word.
    package static let magic: UInt64 = 0x0100_006D_6853_6443
    package static let version: UInt32 = 1
    /// Bytes mapped: the words above, rounded up to a page.
    package static let size = 4096

    package static let magicWord = 0
    package static let versionWord = 1
    package static let sequenceWord = 2
    package static let stateWords = 3..<8
    package static let stateCRCWord = 8
    package static let durableWord = 9
    package static let checkpointWord = 10
    package static let firstSlotWord = 16
    package static let slotCount = 64

    package static func pidWord(slot: Int) -> Int { firstSlotWord + 2 * slot }
    package static func markWord(slot: Int) -> Int { firstSlotWord + 2 * slot + 1 }

    static let attachLock = 0
    static let writerLock = 1
    static func slotLock(_ slot: Int) -> Int { 2 + slot }
}

/// What every process must agree on to read and extend the store: the end of the written log and
/// the page file header in use (words 3–7).
package struct SharedStoreState: Equatable, Sendable {
    var written: CommitSequence
    var walEnd: UInt64
    var walChainCRC: UInt32
    var walSalt: UInt32
    var checkpointSequence: UInt64
    var headerCommit: CommitSequence

    var words: [UInt64] {
        [
            written.rawValue, walEnd, UInt64(walChainCRC) | UInt64(walSalt) << 32, checkpointSequence,
            headerCommit.rawValue,
        ]
    }

    init(
        written: CommitSequence, walEnd: UInt64, walChainCRC: UInt32, walSalt: UInt32, checkpointSequence: UInt64,
        headerCommit: CommitSequence
    ) {
        self.written = written
        self.walEnd = walEnd
        self.walChainCRC = walChainCRC
        self.walSalt = walSalt
        self.checkpointSequence = checkpointSequence
        self.headerCommit = headerCommit
    }

    init(words w: [UInt64]) {
        self.init(
            written: CommitSequence(w[0]), walEnd: w[1], walChainCRC: UInt32(truncatingIfNeeded: w[2]),
            walSalt: UInt32(truncatingIfNeeded: w[2] >> 32), checkpointSequence: w[3],
            headerCommit: CommitSequence(w[4]))
    }

    package static func crc(_ words: [UInt64]) -> UInt64 {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(40)
        for w in words { bytes.appendLE(w) }
        return UInt64(Checksum.crc32(bytes))
    }
}
