// `CdCommit`: what one commit changed, as the main context merged it, by entity. It is the
// payload of the `cdDidMergeCommit` notification and the element of `Cd.commits`.

import Foundation
import CdObjects

/// The objects one commit inserted, updated and deleted, grouped by entity name (the concrete
/// entity of each object, so a sub-entity's objects are listed under the sub-entity).
///
/// Posted after the commit is merged into the main context, as the user info of a
/// ``Foundation/Notification/Name/cdDidMergeCommit`` notification, and yielded by ``Cd/commits``.
///
/// ```swift
/// for await commit in Cd.commits {
///     if let gone = commit.deleted["Employee"] { print("\(gone.count) employees left") }
/// }
/// ```
public struct CdCommit: Sendable, Hashable, CustomStringConvertible {
    /// Counts merged commits in this process, from 1, in commit order.
    public let number: UInt64
    /// Objects the commit created.
    public let inserted: [String: Set<ObjectID>]
    /// Objects whose stored values changed: those the transaction set, and those the store
    /// changed to keep inverses in step or to nullify a relationship.
    public let updated: [String: Set<ObjectID>]
    /// Objects the commit deleted, cascaded deletes included.
    public let deleted: [String: Set<ObjectID>]

    /// The user info key of the ``CdCommit`` itself.
    public static let commitKey = "commit"
    /// The user info key of ``inserted`` (`[String: Set<ObjectID>]`).
    public static let insertedKey = "inserted"
    /// The user info key of ``updated`` (`[String: Set<ObjectID>]`).
    public static let updatedKey = "updated"
    /// The user info key of ``deleted`` (`[String: Set<ObjectID>]`).
    public static let deletedKey = "deleted"

    init(number: UInt64, _ applied: AppliedChanges) {
        // One set per entity, filtered from `ids` (no intermediate arrays); a commit of one
        // entity shares `ids` itself. A bulk insert of a million objects so costs one copy of
        // its IDs here, not three.
        func byEntity(_ ids: Set<ObjectID>) -> [String: Set<ObjectID>] {
            if ids.isEmpty { return [:] }  // most commits leave two of the three lists empty
            // Most commits touch one entity per list: found by comparing names, with no set built.
            let first = ids.first!.entity
            if ids.allSatisfy({ $0.entity == first }) { return [first: ids] }
            var entities: Set<String> = []
            var last: String?
            for id in ids where id.entity != last {
                last = id.entity
                entities.insert(id.entity)
            }
            if entities.count == 1, let only = entities.first { return [only: ids] }
            return Dictionary(uniqueKeysWithValues: entities.map { e in (e, ids.filter { $0.entity == e }) })
        }
        self.number = number
        inserted = byEntity(applied.inserted)
        updated = byEntity(applied.updated)
        deleted = byEntity(applied.deleted)
    }

    /// The names of the entities with an object the commit inserted, updated or deleted.
    public var entities: Set<String> {
        Set(inserted.keys).union(updated.keys).union(deleted.keys)
    }

    /// Every object the commit touched.
    public var allObjectIDs: Set<ObjectID> {
        var all = Set<ObjectID>()
        for ids in [inserted, updated, deleted].flatMap(\.values) { all.formUnion(ids) }
        return all
    }

    /// The notification's user info: the commit under ``commitKey`` and its three lists.
    public var userInfo: [AnyHashable: Any] {
        [Self.commitKey: self, Self.insertedKey: inserted, Self.updatedKey: updated, Self.deletedKey: deleted]
    }

    /// "commit #3: inserted Employee×2; deleted Department×1".
    public var description: String {
        func list(_ name: String, _ ids: [String: Set<ObjectID>]) -> String? {
            guard !ids.isEmpty else { return nil }
            return name + " " + ids.keys.sorted().map { "\($0)×\(ids[$0]!.count)" }.joined(separator: ", ")
        }
        let parts = [list("inserted", inserted), list("updated", updated), list("deleted", deleted)].compactMap { $0 }
        return "commit #\(number): " + (parts.isEmpty ? "no changes" : parts.joined(separator: "; "))
    }
}

extension Notification.Name {
    /// Posted on the main queue (by `NotificationCenter.default`, with no object) after each
    /// commit is merged into the main context; the user info is ``CdCommit/userInfo``.
    ///
    /// ```swift
    /// NotificationCenter.default.addObserver(forName: .cdDidMergeCommit, object: nil, queue: nil) { note in
    ///     let inserted = note.userInfo?[CdCommit.insertedKey] as? [String: Set<ObjectID>] ?? [:]
    ///     print(inserted["Employee"]?.count ?? 0, "new employees")
    /// }
    /// ```
    public static let cdDidMergeCommit = Notification.Name("CdDidMergeCommit")
}
