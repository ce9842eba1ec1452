// The global IDs of the local objects one push names, resolved in the push's snapshot: the
// identity map's, else derived (GI1, GI2), and the renames of uniqueness-derived objects (GI4).
//
// Invariants:
//  IR1. An object resolves to one global ID per push: the first resolution is remembered, so an
//       object named by several ops and references of a batch travels under one ID.
//  IR2. A renamed object (GI4) resolves to the ID of its new unique values before any reference
//       to it is resolved, so every reference the batch carries names the new ID.
//  IR3. A rename's identity map writes (the old ID's entry dropped, the new one written) are
//       made with the batch's acknowledgement, not before the batch is sent (PC3): a push that
//       fails leaves the map as it was, so the next attempt finds the rename again and sends it
//       again. Written before the send, they made a retried batch send the renamed object as an
//       edit of its new ID, never deleting the old one (the campaign's server stops and cut
//       connections met it). The old entry is dropped only when no other object of the batch
//       takes the old ID (a new tag of the old name, whose entry PC3 wrote), so a later pull of
//       the old ID's tombstone finds no local object to delete.

import CdObjects
import Foundation

/// Global IDs of local objects within one snapshot, remembering the new map entries (PC3).
struct IdentityResolver {
    let snapshot: ObjectSnapshot
    let schema: SyncSchema
    let replica: UUID
    var known: [ObjectID: UUID] = [:]
    /// Identity map entries of the batch's new objects (PC3).
    private var written: [SideTreeWrite] = []
    /// The batch's renames: object, old ID, new ID (IR3).
    private var renames: [(id: ObjectID, old: UUID, new: UUID)] = []

    init(snapshot: ObjectSnapshot, schema: SyncSchema, replica: UUID) {
        self.snapshot = snapshot
        self.schema = schema
        self.replica = replica
    }

    /// The identity map writes to make before the batch is sent (PC3).
    var newMappings: [SideTreeWrite] { written }

    /// The identity map writes of the batch's renames, made with its acknowledgement (IR3).
    var renameMappings: [SideTreeWrite] {
        renames.flatMap { r -> [SideTreeWrite] in
            let root = schema.entities[r.id.entity]?.root ?? r.id.entity
            let taken = known.contains { $0.key != r.id && $0.value == r.old }
            let drop = SideTreeWrite(tree: ReplicaState.tree, key: [UInt8(ascii: "g")] + r.old.bytes, value: nil)
            return (taken ? [] : [drop]) + ReplicaState.map(r.new, to: r.id, root: root)
        }
    }

    /// Whether `id` had a global ID in the identity map before this batch (it was synced).
    func isMapped(_ id: ObjectID) throws -> Bool {
        try mapped(id) != nil
    }

    /// The global ID `id` had in the identity map before this batch, if any.
    func mapped(_ id: ObjectID) throws -> UUID? {
        let root = schema.entities[id.entity]?.root ?? id.entity
        return try ReplicaState.global(root: root, primaryKey: id.primaryKey, in: snapshot)
    }

    /// The global ID of `id`; `values` (its stored values) when the caller has them (IR1).
    mutating func gid(of id: ObjectID, values: [String: PropertyValue]?) throws -> UUID {
        if let g = known[id] { return g }
        if let g = try mapped(id) {
            known[id] = g
            return g
        }
        let root = schema.entities[id.entity]?.root ?? id.entity
        let gid =
            try derived(id, values: values) ?? GlobalID.created(replica: replica, root: root, primaryKey: id.primaryKey)
        known[id] = gid
        if try snapshot.exists(id) { written += ReplicaState.map(gid, to: id, root: root) }
        return gid
    }

    /// When `id`, of a uniqueness-derived entity, holds unique values (`values`, as stored) that no
    /// longer derive the global ID it is mapped to, it was renamed (GI4): from now on it resolves
    /// to the ID of its values (IR2), its map entries are rewritten on acknowledgement (IR3), and
    /// the old ID is returned.
    mutating func rename(_ id: ObjectID, values: [String: PropertyValue]) throws -> UUID? {
        guard known[id] == nil, let old = try mapped(id), let new = try derived(id, values: values), new != old else {
            return nil
        }
        known[id] = new
        renames.append((id, old, new))
        return old
    }

    /// The ID derived from the unique values of `id` (GI2), nil for an entity without a uniqueness
    /// constraint or an object that no longer exists.
    private func derived(_ id: ObjectID, values: [String: PropertyValue]?) throws -> UUID? {
        guard let entity = schema.entities[id.entity], let unique = entity.uniqueness,
            let values = try values ?? snapshot.values(of: id)
        else { return nil }
        let parts = unique.map { name -> String in
            if case let .attribute(v)? = values[name] { return WireValue.attribute(v).json }
            return "{}"
        }
        return GlobalID.unique(root: entity.root, values: parts)
    }
}
