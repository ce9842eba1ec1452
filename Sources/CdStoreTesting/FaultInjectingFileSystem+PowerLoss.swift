// Power loss: what survives of a `FaultInjectingFileSystem` when the power goes.
//
// The names that survive are exactly `durableEntries` (FD3). Each surviving file starts from its
// durable image (FD2); then, depending on the mode, some of its pending changes land too, as a
// disk's volatile cache may have written them back in any order before the power went (as
// SQLite's crash VFS, src/test6.c, applies, drops or garbles each queued write at a crash, and
// as its atomic-commit design assumes that the OS reorders writes between syncs):
//
//   mode                          pending changes that land
//   ----------------------------  -------------------------------------------------------------
//   .dropUnsynced ([])            none
//   .reorderUnsynced              each with probability 1/2, applied in a random order
//   .tearLast                     the file's last pending change, if a write, lands torn: only
//                                 the part before a random 512-byte sector boundary inside it
//                                 (none if it spans no boundary: a sector is all or nothing)
//
// `.tearLast` combines with either: the torn write is applied after the others. Everything is
// drawn from a SplitMix64 generator seeded with `seed`, and files are visited in sorted path
// order, so one seed always gives the same damage.

import CdStore

/// Which unsynced changes a simulated power loss lets through. See
/// `FaultInjectingFileSystem.powerLoss(seed:mode:)`.
///
/// ```swift
/// let harsh: PowerLossMode = [.reorderUnsynced, .tearLast]
/// let rebooted = fs.powerLoss(seed: seed, mode: harsh)
/// ```
public struct PowerLossMode: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Every write and truncate not yet synced is lost (the empty set).
    public static let dropUnsynced: PowerLossMode = []
    /// A random subset of the unsynced changes of each file lands, in random order.
    public static let reorderUnsynced = PowerLossMode(rawValue: 1 << 0)
    /// The last unsynced write of each file lands torn at a random 512-byte boundary.
    public static let tearLast = PowerLossMode(rawValue: 1 << 1)
}

extension FaultInjectingFileSystem {
    /// The sector size of the simulated disk: a torn write breaks only at these boundaries.
    public static let sectorSize: UInt64 = 512

    /// The files that would survive a power loss now, as path → bytes (see the file comment for
    /// the rules). Deterministic for a given state, `seed` and `mode`.
    ///
    /// ```swift
    /// let survivors = fs.survivingFiles(seed: 7, mode: .reorderUnsynced)
    /// #expect(survivors["store.cd"]?.count == 8192)
    /// ```
    public func survivingFiles(seed: UInt64, mode: PowerLossMode = .dropUnsynced) -> [String: [UInt8]] {
        state.withLock { state in
            var random = SplitMix64(seed: seed)
            var files: [String: [UInt8]] = [:]
            for path in state.durableEntries.keys.sorted() {
                let shadow = state.shadows[state.durableEntries[path]!]!
                var data = shadow.durable
                var pending = shadow.pending
                var torn: (offset: UInt64, bytes: [UInt8])?
                if mode.contains(.tearLast), case let .write(offset, bytes)? = pending.last {
                    pending.removeLast()
                    torn = (offset, bytes)
                }
                if mode.contains(.reorderUnsynced) {
                    var landed = pending.filter { _ in random.next() & 1 == 1 }
                    landed.shuffle(using: &random)
                    for change in landed { Self.apply(change, to: &data) }
                }
                if let torn {
                    let prefix = Self.tornPrefix(offset: torn.offset, count: torn.bytes.count, using: &random)
                    Self.apply(.write(offset: torn.offset, bytes: Array(torn.bytes[..<prefix])), to: &data)
                }
                files[path] = data
            }
            return files
        }
    }

    /// Simulates a power cut and reboot: a new file system holding what survived
    /// (`survivingFiles(seed:mode:)`), all of it durable, with no plan and an empty log. This file
    /// system is left as it was, so one crash point can be replayed with several seeds.
    ///
    /// ```swift
    /// for seed in 0..<20 as Range<UInt64> {
    ///     let rebooted = crashed.powerLoss(seed: seed, mode: [.reorderUnsynced, .tearLast])
    ///     try checkRecovery(rebooted)   // print the seed when this fails
    /// }
    /// ```
    public func powerLoss(seed: UInt64, mode: PowerLossMode = .dropUnsynced) -> FaultInjectingFileSystem {
        FaultInjectingFileSystem(files: survivingFiles(seed: seed, mode: mode))
    }

    /// The length of the part of a write of `count` bytes at `offset` that lands when it is torn:
    /// it ends at a random sector boundary strictly inside the write, or is empty if there is none.
    package static func tornPrefix(offset: UInt64, count: Int, using random: inout SplitMix64) -> Int {
        let end = offset + UInt64(count)
        let firstBoundary = (offset / sectorSize + 1) * sectorSize
        guard firstBoundary < end else { return 0 }
        let boundaries = (end - 1 - firstBoundary) / sectorSize + 1
        let cut = firstBoundary + (random.next() % boundaries) * sectorSize
        return Int(cut - offset)
    }

    static func apply(_ change: FaultState.PendingChange, to data: inout [UInt8]) {
        switch change {
        case let .write(offset, bytes):
            let start = Int(offset)
            let end = start + bytes.count
            if data.count < end { data.append(contentsOf: repeatElement(0, count: end - data.count)) }
            data.replaceSubrange(start..<end, with: bytes)
        case let .truncate(size):
            let size = Int(size)
            if size < data.count {
                data.removeLast(data.count - size)
            } else {
                data.append(contentsOf: repeatElement(0, count: size - data.count))
            }
        }
    }
}
