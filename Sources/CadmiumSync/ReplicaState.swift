// A replica's sync state, kept in the engine tree `sync.state` of its own store, written in the
// same engine commit as the objects it describes (SW2 of SideTreeWrites.swift).
//
//   key                         value
//   "m.replica"                 the replica ID (16 bytes)
//   "m.scope"                   the scope's name (UTF-8)
//   "m.pushed"                  history ID (16) ‖ number (u64 BE) ‖ stamp (i64 BE) ‖ batches (u64 BE):
//                               the last local transaction the server acknowledged
//   "m.cursor"                  server change number (i64 BE) ‖ server epoch (16)
//   "m.clock"                   the hybrid clock's last stamp (i64 BE)
//   "m.schema"                  the synced names the last pull applied with, sorted, one per
//                               line (UTF-8): "Entity" and "Entity.property" (VR1)
//   "g" ‖ global ID (16)        entity name (UTF-8) ‖ 0 ‖ primary key (i64 BE)
//   "l" ‖ root ‖ 0 ‖ key (8)    global ID (16)
//
// Invariants:
//  RS1. "m.pushed" names a transaction the server has applied; every local transaction after it
//       that is not the sync engine's own is pending (pushed by the next push).
//  RS2. "m.cursor", "m.schema" and the objects a pull applied are written in one local commit:
//       the store holds every server change up to the cursor, of the names "m.schema" lists, and
//       none after it that was pulled.
//  RS3. The two identity maps ("g", "l") agree: a global ID maps to one local object, which maps
//       back to it (GI3).

import CdObjects
import CdStore
import Foundation

/// The acknowledged push position (RS1).
struct PushedPosition: Sendable, Hashable {
    var historyID: UUID
    var number: UInt64
    /// The acknowledged transaction's timestamp in microseconds: a fingerprint that tells this
    /// store's transaction `number` from another store's (a copied file).
    var stamp: Int64
    /// Batches acknowledged so far.
    var batches: UInt64
}

/// The pull cursor (RS2).
struct PullCursor: Sendable, Hashable {
    var sequence: Int64
    var epoch: UUID
}

/// The replica's state as one snapshot sees it, and the writes that change it.
struct ReplicaState: Sendable {
    static let tree = "sync.state"

    var replicaID: UUID?
    var scope: String?
    var pushed: PushedPosition?
    var cursor: PullCursor?
    var clock = HybridClock()
    /// The schema record of the last pull (VR1); nil before the first, or from an older build.
    var schemaRecord: Set<String>?

    /// Reads the state in `snapshot`.
    init(_ snapshot: ObjectSnapshot) throws {
        guard let tree = try snapshot.sideTree(Self.tree) else { return }
        do {
            if let b = try tree.get(Array("m.replica".utf8)) { replicaID = UUID(bytes: b) }
            if let b = try tree.get(Array("m.scope".utf8)) { scope = String(decoding: b, as: UTF8.self) }
            if let b = try tree.get(Array("m.pushed".utf8)), b.count == 40, let id = UUID(bytes: Array(b[0..<16])) {
                pushed = PushedPosition(
                    historyID: id, number: UInt64(bitPattern: Self.i64(b, 16)), stamp: Self.i64(b, 24),
                    batches: UInt64(bitPattern: Self.i64(b, 32)))
            }
            if let b = try tree.get(Array("m.cursor".utf8)), b.count == 24, let epoch = UUID(bytes: Array(b[8..<24])) {
                cursor = PullCursor(sequence: Self.i64(b, 0), epoch: epoch)
            }
            if let b = try tree.get(Array("m.clock".utf8)), b.count == 8 { clock = HybridClock(last: Self.i64(b, 0)) }
            if let b = try tree.get(Array("m.schema".utf8)) { schemaRecord = Self.record(b) }
        } catch let e as StoreError {
            throw CdError.store(e)
        }
    }

    // MARK: - Writes

    static func meta(_ name: String, _ value: [UInt8]) -> SideTreeWrite {
        SideTreeWrite(tree: tree, key: Array("m.\(name)".utf8), value: value)
    }

    static func write(replicaID: UUID, scope: String) -> [SideTreeWrite] {
        [meta("replica", replicaID.bytes), meta("scope", Array(scope.utf8))]
    }

    static func write(_ p: PushedPosition) -> SideTreeWrite {
        meta(
            "pushed",
            p.historyID.bytes + be(Int64(bitPattern: p.number)) + be(p.stamp) + be(Int64(bitPattern: p.batches)))
    }

    /// Forgets the acknowledged position: the next push sends the whole state (PC4).
    static func clearPushed() -> SideTreeWrite { SideTreeWrite(tree: tree, key: Array("m.pushed".utf8), value: nil) }

    static func write(_ c: PullCursor) -> SideTreeWrite { meta("cursor", be(c.sequence) + c.epoch.bytes) }

    static func write(_ clock: HybridClock) -> SideTreeWrite { meta("clock", be(clock.last)) }

    /// Both identity map entries of one object (keeps RS3).
    static func map(_ gid: UUID, to id: ObjectID, root: String) -> [SideTreeWrite] {
        [
            SideTreeWrite(
                tree: tree, key: [UInt8(ascii: "g")] + gid.bytes, value: Array(id.entity.utf8) + [0] + be(id.primaryKey)
            ),
            SideTreeWrite(tree: tree, key: localKey(root: root, primaryKey: id.primaryKey), value: gid.bytes),
        ]
    }

    static func localKey(root: String, primaryKey: Int64) -> [UInt8] {
        [UInt8(ascii: "l")] + Array(root.utf8) + [0] + be(primaryKey)
    }

    // MARK: - Identity look-ups

    /// The local object of a global ID, if mapped (RS3).
    static func local(_ gid: UUID, in snapshot: ObjectSnapshot) throws -> ObjectID? {
        guard let tree = try snapshot.sideTree(Self.tree) else { return nil }
        let value: [UInt8]?
        do { value = try tree.get([UInt8(ascii: "g")] + gid.bytes) } catch let e as StoreError {
            throw CdError.store(e)
        }
        guard let v = value, let zero = v.firstIndex(of: 0), v.count - zero == 9 else { return nil }
        return ObjectID(
            entity: String(decoding: v[..<zero], as: UTF8.self), primaryKey: i64(Array(v[(zero + 1)...]), 0))
    }

    /// The global ID of a local object, if mapped (RS3).
    static func global(root: String, primaryKey: Int64, in snapshot: ObjectSnapshot) throws -> UUID? {
        guard let tree = try snapshot.sideTree(Self.tree) else { return nil }
        do { return try tree.get(localKey(root: root, primaryKey: primaryKey)).flatMap(UUID.init(bytes:)) } catch let e
            as StoreError
        {
            throw CdError.store(e)
        }
    }

    // MARK: - Bytes

    static func be(_ v: Int64) -> [UInt8] { withUnsafeBytes(of: v.bigEndian) { Array($0) } }

    static func i64(_ b: [UInt8], _ at: Int) -> Int64 {
        var v: Int64 = 0
        for i in 0..<8 { v = (v << 8) | Int64(b[at + i]) }
        return v
    }
}
