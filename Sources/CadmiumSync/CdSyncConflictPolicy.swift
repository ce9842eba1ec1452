// The conflict policies a synced entity may choose, named after Core Data's merge policies.

import Foundation

/// How the server resolves a property that two replicas changed concurrently (neither had pulled
/// the other's edit when it pushed its own). Chosen per entity; ``newestEditWins`` by default.
/// Whatever the policy, a delete wins over concurrent edits. A create is not an edit: a create
/// of an object's global ID (an entity whose IDs derive from unique values) brings back an object
/// deleted elsewhere, and a delete that had not seen such a create loses to it
/// (``CdSyncConflict/Kind/created``).
///
/// ```swift
/// let sync = try CdSync(server: url, scope: "team-42", entities: ["Note", "Tag"],
///                       policies: ["Tag": .mergeByPropertyStoreTrump])
/// ```
public enum CdSyncConflictPolicy: String, Sendable, Hashable, CaseIterable, Codable {
    /// Per property, the edit with the newer hybrid-clock stamp wins; equal stamps are broken by
    /// the larger replica ID. Every replica converges on the same value whatever the push order.
    case newestEditWins
    /// Per property, the pushing replica's edit wins (Core Data's object trump): the last push wins.
    case mergeByPropertyObjectTrump
    /// Per property, the value already on the server wins (Core Data's store trump): the first
    /// push wins; the later replica's edit is dropped and it pulls the server's value.
    case mergeByPropertyStoreTrump
    /// A concurrent edit refuses the whole batch with the conflicts listed
    /// (``CdSyncError/Code/conflictRefused``); the replica then pulls the server's values.
    case error
}

/// One concurrent change that lost, as the server records it (`cadmium_sync.conflicts`) and an
/// event reports.
public struct CdSyncConflict: Sendable, Hashable, CustomStringConvertible {
    /// What lost (docs/SYNC.md, Conflicts).
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A property edit lost to another replica's edit of the property, by the entity's policy.
        case property
        /// An edit of an object that another replica deleted concurrently was dropped: a delete
        /// wins over edits.
        case deleted
        /// A delete lost to a create of the same global ID (a uniqueness-derived ID) that the
        /// deleting replica had not pulled, or that was made without having pulled the delete:
        /// the object lives on with the created values. The loser is the deleting replica.
        case created
    }

    /// The object's global ID.
    public let objectID: UUID
    /// Its entity.
    public let entity: String
    /// The property, or nil when the loss is of a whole object (``Kind/deleted``, ``Kind/created``).
    public let property: String?
    /// The replica whose change lost; ``unknownReplica`` for a delete the server recorded before
    /// its migration 2, which kept no deleting replica.
    public let loser: UUID
    /// What lost.
    public let kind: Kind

    /// The loser of a ``Kind/created`` conflict over a tombstone from before the server's
    /// migration 2, which does not name the replica that deleted it (the nil UUID).
    public static let unknownReplica = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    /// `Note 1B4E…/title lost by <replica>`, `Tag 9C0D…/(created) lost by <replica>`.
    public var description: String {
        "\(entity) \(objectID.uuidString)/\(property ?? "(\(kind.rawValue))") lost by \(loser.uuidString)"
    }
}
