// What a sync engine on top of Cadmium needs of the `Cd` container: its object store, and the
// ordinary commit paths, so that pulled changes reach the main context, `Cd.commits` and fetched
// results controllers like any commit (CdContainer.save keeps ST1–ST3): one change set, or a
// streaming writer that takes a pull page by page and commits once.

import CdObjects

/// The `Cd` container's object store and its commit path, for layers above (CadmiumSync).
package struct CdCommitPath: Sendable {
    /// The container's object store.
    package let store: ObjectStore
    /// Commits a change set as the root context's save does: durable when it returns, merged into
    /// the main context in commit order.
    package let commit: @Sendable (ChangeSet) throws -> AppliedChanges
    /// Begins a streaming writer (`ObjectStoreWriter`) on the container's store, in the container's commit
    /// order (CdContainer.beginWriter): it holds the store's writer until `commitWriter` or its
    /// `rollback()`.
    package let beginWriter: @Sendable () throws -> ObjectStoreWriter
    /// Commits a writer begun by `beginWriter` as the root context's save does (durable when it
    /// returns, merged into the main context in commit order); `direct` names the objects the
    /// batches updated themselves. On a throw the writer is rolled back.
    package let commitWriter: @Sendable (ObjectStoreWriter, _ direct: Set<ObjectID>) throws -> AppliedChanges
}

extension Cd {
    /// The commit path of the current container; `call` names the caller in the error when there is
    /// no container, or when its store is not an object store (a test double).
    package static func commitPath(_ call: String) throws -> CdCommitPath {
        let container = try requireContainer(call)
        guard let store = container.store as? ObjectStore else {
            throw CdError.store(.invalidArgument("\(call) needs a container on an object store"))
        }
        return CdCommitPath(
            store: store, commit: { try container.save($0) }, beginWriter: { try container.beginWriter() },
            commitWriter: { writer, direct in try container.save(writer: writer, direct: direct, last: {}) })
    }
}
