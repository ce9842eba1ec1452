// How a sync engine commits what it pulls: a streaming writer over its store
// (`ObjectStoreWriter`), begun and committed through the app's commit path, so that a pull of
// many pages becomes one local commit that reaches the main context, `Cd.commits` and fetched
// results controllers like any other commit (PG2 of SyncEngine+Pull.swift).

import CdObjects

/// The writer a pull applies its pages into, and the commit that ends it.
package struct SyncCommitPath: Sendable {
    /// Begins the writer: waits while another write runs, then holds the store's writer.
    package let begin: @Sendable () throws -> ObjectStoreWriter
    /// Commits the writer (durable when it returns); `direct` names the objects the pages updated
    /// themselves, as a context merge wants them. On a throw everything is rolled back.
    package let commit: @Sendable (ObjectStoreWriter, _ direct: Set<ObjectID>) throws -> AppliedChanges

    package init(
        begin: @escaping @Sendable () throws -> ObjectStoreWriter,
        commit: @escaping @Sendable (ObjectStoreWriter, _ direct: Set<ObjectID>) throws -> AppliedChanges
    ) {
        self.begin = begin
        self.commit = commit
    }

    /// The store's own writer and commit: a store without the `Cd` stack (tools, tests, the
    /// campaign's replica processes).
    package static func store(_ store: ObjectStore) -> SyncCommitPath {
        SyncCommitPath(begin: { try store.beginWriter() }, commit: { writer, _ in try writer.commit() })
    }
}
