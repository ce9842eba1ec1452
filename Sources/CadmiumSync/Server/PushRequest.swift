// What one push sends and what the server answers (the protocol in docs/SYNC.md, Push).

import Foundation

/// One object's coalesced changes in a push.
struct PushOp: Sendable, Hashable {
    enum Kind: String, Sendable, Hashable {
        /// The replica created the object: it brings back an object of its global ID that the
        /// server holds deleted (a uniqueness-derived ID created again, PR1 of
        /// PushResolution.swift), and a delete that had not seen it loses to it (PR2).
        case insert
        /// The replica changed properties of the object.
        case update
        /// The replica's state of an object it synced before, sent when it starts syncing again
        /// from its state (PC4 of PushCollector.swift): like an update, it fills in what the
        /// server lacks and never brings back a deleted object (PR5).
        case state
        /// The replica deleted the object.
        case delete
    }

    struct Property: Sendable, Hashable {
        var name: String
        var value: WireValue
        var hlc: Int64
        /// For a `state` op: the replica's last pull applied this property (its schema record
        /// names it, VR1), so a value that differs from a stored one the replica had seen is the
        /// replica's own edit since (PR9 of PushResolution.swift).
        var pulled = false
    }

    var gid: UUID
    var entity: String
    var kind: Kind
    /// The stamp of the insert or delete (for an update, the newest of its properties').
    var hlc: Int64
    var properties: [Property]
    /// For an insert that renames an object of a uniqueness-derived ID (GI4 of GlobalID.swift):
    /// the global ID the object had, which the same batch deletes. The server moves the
    /// references the replica had seen from it to this op's ID (PU5).
    var renamedFrom: UUID? = nil
}

/// One batch: the replica's local transactions after `from` up to `to`, coalesced per object and
/// property (RS1 of ReplicaState.swift).
struct PushRequest: Sendable {
    var scope: String
    var replica: UUID
    /// The position the replica believes the server acknowledged (nil: none yet): the
    /// compare-and-set's expected value.
    var from: PushedPosition?
    /// The position this batch brings the replica to.
    var to: PushedPosition
    var ops: [PushOp]
    /// The last server change number the replica has pulled: an edit on the server numbered after
    /// it, by another replica, is concurrent with this batch's edits.
    var seen: Int64
    var modelVersion: Int
    var policies: [String: CdSyncConflictPolicy]
}

/// The server's answer to a push.
enum PushOutcome: Sendable, Equatable {
    /// Applied in one server transaction as change number `seq`; `conflicts` are the edits the
    /// policies decided against (this batch's and others').
    case applied(seq: Int64, conflicts: [CdSyncConflict])
    /// The compare-and-set failed: the server's acknowledged position for this replica is
    /// `server` (nil: it has none), not the request's `from`. Nothing was applied.
    case positionMismatch(server: PushedPosition?)
    /// The error policy refused the batch; nothing was applied.
    case refused([CdSyncConflict])
    /// The scope accepts pushes from model versions `minimum` and up only.
    case modelTooOld(minimum: Int)
}
