// Global object identity: every synced object has an immutable UUID besides its local key.
//
// Invariants:
//  GI1. An object created on a replica gets the UUID derived from (replica ID, hierarchy root,
//       primary key): keys are never reused in a hierarchy (OS1), so no two objects of one
//       replica share it, and re-deriving it after a crash gives the same UUID.
//  GI2. An object of an entity with a uniqueness constraint gets the UUID derived from the
//       entity's root and the values of its first constraint, so two replicas that create the
//       same tag create one object.
//  GI3. Once assigned, a global ID never changes (the identity map keeps it, ReplicaState.swift),
//       but by GI4.
//  GI4. A global ID derived from unique values (GI2) always names the object that holds those
//       values. A replica that changes an object's unique values (renames the tag "swift" to
//       "swiftlang") pushes, in one batch, a delete of the old ID and a create of the ID of the
//       new values with every synced property (`PushOp.renamedFrom`), maps the object to the new
//       ID (IR3 of IdentityResolver.swift), and the server moves the references the replica had
//       seen (PU5 of ServerConnection+Rename.swift). Otherwise a renamed tag kept the old ID: a
//       new "swift" created anywhere was the same global ID as "swiftlang" (two local objects
//       under one ID, merged into one on the server), and a "swiftlang" created elsewhere was
//       another ID with the same name (refused by every pull's uniqueness check).

import CdObjects
import Foundation

/// Derives global IDs (GI1, GI2).
enum GlobalID {
    /// The UUID of an object a replica created, from its replica ID and local key (GI1).
    static func created(replica: UUID, root: String, primaryKey: Int64) -> UUID {
        var bytes: [UInt8] = Array("cadmium.sync.created\0".utf8)
        bytes += withUnsafeBytes(of: replica.uuid) { Array($0) }
        bytes += Array(root.utf8) + [0]
        bytes += withUnsafeBytes(of: primaryKey.bigEndian) { Array($0) }
        return uuid(SHA256.digest(bytes))
    }

    /// The UUID of an object identified by the values of a uniqueness constraint (GI2); the
    /// values are in the constraint's order, as the server stores them.
    static func unique(root: String, values: [String]) -> UUID {
        var bytes: [UInt8] = Array("cadmium.sync.unique\0".utf8) + Array(root.utf8) + [0]
        for v in values { bytes += Array(v.utf8) + [0] }
        return uuid(SHA256.digest(bytes))
    }

    /// A version-8 (name-based, custom) UUID from the first 16 bytes of a digest.
    private static func uuid(_ digest: [UInt8]) -> UUID {
        var b = Array(digest.prefix(16))
        b[6] = (b[6] & 0x0F) | 0x80
        b[8] = (b[8] & 0x3F) | 0x80
        return UUID(
            uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])
        )
    }
}

extension UUID {
    /// The 16 bytes of the UUID, in order.
    var bytes: [UInt8] { withUnsafeBytes(of: uuid) { Array($0) } }

    /// The UUID of 16 bytes, or nil for another length.
    init?(bytes b: [UInt8]) {
        guard b.count == 16 else { return nil }
        self.init(
            uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])
        )
    }
}
