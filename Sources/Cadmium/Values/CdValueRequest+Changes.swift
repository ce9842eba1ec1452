// Observation of a value query: `Cd.values(T.self)…changes()` follows the object query of the
// same shape (`CdFetchRequest.changes()`, which decides when a commit can change the results and
// computes the difference) and unboxes each change's results into values on the main actor,
// where the main context's objects are readable. The positions are the object query's: a value
// stands at the place of the object it was read from.
//
// `updated` lists values whose own object a commit changed; a change to a nested value's object
// only (an employee of a shop, for a query of shops) is not reported as an update of the outer
// value.

import Foundation
import CdObjects

extension CdValueRequest {
    /// Observes the query: the current values first, then, after each commit that changes the
    /// results, the new values and what changed (see ``CdFetchRequest/changes()``). Values are
    /// plain data, so the changes can be consumed on any task.
    ///
    /// ```swift
    /// for try await change in Cd.values(Employee.self).sorted("name").changes() {
    ///     print(change.results.map(\.name))
    /// }
    /// ```
    public func changes() -> CdValueChanges<T> { CdValueChanges(request: self) }
}

/// The sequence returned by ``CdValueRequest/changes()``. Each iteration is its own observation.
public struct CdValueChanges<T: CdManagedStruct>: AsyncSequence {
    public typealias Element = CdResultsChange<T>
    public typealias Failure = any Error

    let request: CdValueRequest<T>

    /// A new observation of the query.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(request: request) }

    /// Steps through one observation; see ``CdValueRequest/changes()``.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let request: CdValueRequest<T>
        var objects: CdResultsChanges<CdManagedObject>.AsyncIterator?

        /// The next change: at once for the first, else after the next commit that changes the
        /// results; nil once the task is cancelled.
        public mutating func next() async throws -> CdResultsChange<T>? {
            var iterator: CdResultsChanges<CdManagedObject>.AsyncIterator
            if let objects {
                iterator = objects
            } else {
                try request.validate()
                iterator = request.objectRequest().changes().makeAsyncIterator()
            }
            let change = try await iterator.next()
            objects = iterator
            guard let change else { return nil }
            let boxed = Unchecked(change)
            return try await MainActor.run {
                let c = boxed.value
                let values = try c.results.map { try T(object: $0) }
                return Unchecked(
                    CdResultsChange(
                        results: values, inserted: c.inserted, deleted: c.deleted, updated: c.updated,
                        moved: c.moved, isInitial: c.isInitial))
            }.value
        }
    }
}
