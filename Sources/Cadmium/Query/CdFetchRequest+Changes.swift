// Query observation: `request.changes()` is an asynchronous sequence of `CdResultsChange`s —
// the request's results in the main context now, then, after each commit that changes them, the
// new results with the difference (`CdResultsChange.swift`).
//
// How it runs. The first `next()` registers a `ResultsObservation` with the main context (held
// weakly there, strongly by the iterator) and fetches. Two ways, chosen by the request:
//
//   followed   (no limit or offset; sort keys that are attributes, or paths of to-ones ending
//              in one) an internal `CdFetchedResultsController` applies each merged commit to
//              the results incrementally, at the commit's cost, and reports what changed;
//              each report raises a signal. One report becomes the change as it is; several
//              (a burst) are combined by diffing the two lists of IDs.
//   refetched  (any other request) after each merge the observation is told what the commit
//              applied; a commit that touches none of the entities the request reads
//              (`QueryReadSet`) is skipped, any other raises a signal, and the next step
//              re-runs the request and diffs it against the results last delivered.
//
// The signal buffer holds one signal, so a burst of commits that arrives while the consumer is
// busy becomes one change; a commit that leaves the results as they were yields nothing.
//
// Invariants:
//   OB4. Every change is computed and delivered on the main actor; its `results` are exactly
//        what `fetch()` on the main thread returned at that moment.
//   OB5. After a commit that can change the results is merged, the consumer's next `next()`
//        reflects it: the merge raises the signal before the consumer can wait for it, and the
//        signal is kept until consumed (buffer of one).
//   OB6. An observation is held only by its iterator: when the consuming task is cancelled or
//        the loop ends, the iterator and the observation go away and the main context's weak
//        reference to it is dropped at its next merge; nothing is left registered.
//   RW1. An observation belongs to the container it started on: `Cd.close()` ends it (its signal
//        stream finishes, so a waiting iteration returns nil), and a merge of that container drained
//        after the close, or a step run after it, ends it too instead of fetching from a container
//        that is gone (which would be misuse C1, stopping the program by default).
//
// Confinement: the observation's state is touched on the main queue only (merges and the steps
// the iterator runs with `MainActor.run`).

import Foundation
import CdObjects
import CdStore
import Synchronization

extension CdFetchRequest where T: CdManagedObject {
    /// Observes the request: an asynchronous sequence that yields the current results first,
    /// then, after each commit that changes them (merged into the main context), the new
    /// results and what changed. Iterate it from a `@MainActor` task: the results are
    /// main-context objects.
    ///
    /// Commits that touch none of the entities the request reads are skipped, a burst of
    /// commits is coalesced into one change, any number of observations may run at once, and an
    /// observation stops (returning nil) when its task is cancelled. A failed fetch (a predicate
    /// that does not parse, a store failure) is thrown by the iteration.
    ///
    /// ```swift
    /// let watcher = Task { @MainActor in
    ///     for try await change in Cd.objects(Employee.self).filter("salary > %@", 100).sorted("name").changes() {
    ///         print(change.results.map(\.name), "inserted at", change.inserted)
    ///     }
    /// }
    /// …
    /// watcher.cancel()
    /// ```
    public func changes() -> CdResultsChanges<T> { CdResultsChanges(request: self) }
}

/// The sequence returned by ``CdFetchRequest/changes()``. Each iteration is its own observation.
public struct CdResultsChanges<T: CdManagedObject>: AsyncSequence {
    public typealias Element = CdResultsChange<T>
    public typealias Failure = any Error

    let request: CdFetchRequest<T>

    /// A new observation of the request.
    public func makeAsyncIterator() -> AsyncIterator {
        let observation = ResultsObservation(request)
        return AsyncIterator(observation: observation, signals: observation.signals.makeAsyncIterator())
    }

    /// Steps through one observation; see ``CdFetchRequest/changes()``.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let observation: ResultsObservation<T>
        var signals: AsyncStream<Void>.AsyncIterator
        var started = false

        /// The next change: at once for the first, else after the next commit that changes the
        /// results; nil once the task is cancelled.
        public mutating func next() async throws -> CdResultsChange<T>? {
            let observation = self.observation
            if !started {
                started = true
                guard !Task.isCancelled else { return nil }
                return try await MainActor.run { Unchecked(try observation.start()) }.value
            }
            while true {
                guard await signals.next() != nil, !Task.isCancelled else { return nil }
                let change = try await MainActor.run { Unchecked(try observation.step()) }.value
                if let change { return change }
            }
        }
    }
}

/// Counts live observations (tests check that a cancelled one is gone, OB6), and keeps the
/// signal of each started one with its container, so that `Cd.close()` can end them (RW1).
enum ResultsObservations {
    static let live = Atomic<Int>(0)
    static let nextKey = Atomic<Int>(0)
    static let open = LockedState<[Int: (container: ObjectIdentifier, signal: AsyncStream<Void>.Continuation)]>([:])

    /// Ends every observation that started on `container` (keeps RW1); called by `Cd.close()`.
    static func end(on container: CdContainer) {
        let signals = open.withLock { open -> [AsyncStream<Void>.Continuation] in
            let ending = open.filter { $0.value.container == ObjectIdentifier(container) }
            for key in ending.keys { open[key] = nil }
            return ending.values.map(\.signal)
        }
        for signal in signals { signal.finish() }
    }
}

/// One observation of a request: the results last delivered and the commits since (OB4–OB6).
final class ResultsObservation<T: CdManagedObject>: MainMergeObserver, @unchecked Sendable {
    // @unchecked: every var is touched on the main queue only (OB4).
    private let request: CdFetchRequest<T>
    let signals: AsyncStream<Void>
    private let signal: AsyncStream<Void>.Continuation
    private var readSet: QueryReadSet?
    private var last: [T] = []
    private var lastIDs: [ObjectID] = []
    /// Objects updated by the commits since `last`.
    private var changedSince = Set<ObjectID>()
    /// Steps run after a signal (tests check that skipped commits run none).
    private(set) var steps = 0
    /// When the request can be followed incrementally: the controller that follows it, and the
    /// changes it reported since `lastIDs`. Nil: the request is refetched after each signal.
    private(set) var controller: CdFetchedResultsController<T>?
    private var reported: [CdFetchedResultsChanges<T>] = []

    /// The container the observation started on (RW1).
    private weak var container: CdContainer?
    /// The observation's entry in `ResultsObservations.open`.
    private let key = ResultsObservations.nextKey.wrappingAdd(1, ordering: .relaxed).newValue

    init(_ request: CdFetchRequest<T>) {
        self.request = request
        (signals, signal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        ResultsObservations.live.add(1, ordering: .relaxed)
    }

    deinit {
        signal.finish()
        ResultsObservations.open.withLock { _ = $0.removeValue(forKey: key) }
        ResultsObservations.live.subtract(1, ordering: .relaxed)
    }

    /// Whether the container the observation started on is still open; if not, ends the
    /// observation (keeps RW1).
    private func containerIsOpen() -> Bool {
        if let container, !container.isClosed { return true }
        signal.finish()
        return false
    }

    /// On the main actor: registers for merges and fetches the first results.
    func start() throws -> CdResultsChange<T> {
        let container = try Cd.requireContainer("CdFetchRequest.changes()")
        self.container = container
        // Ended by `Cd.close()` (RW1).
        ResultsObservations.open.withLock { $0[key] = (ObjectIdentifier(container), signal) }
        let results: [T]
        readSet = QueryReadSet(request.request, model: container.model.objectModel)
        // Registered before the fetch: a commit merged after it is noted (and signals) (OB5).
        container.main.observeMerges(self)
        if IncrementalPlan(request: request.request, sectionNameKeyPath: nil, model: container.model.objectModel) != nil
        {
            // A results controller applies each commit to the results at the commit's cost; its
            // changes since the last delivery are kept until the consumer asks.
            let controller = CdFetchedResultsController(fetchRequest: request, sectionNameKeyPath: nil, cacheName: nil)
            controller.onChange = { [weak self] changes in
                guard let self else { return }
                reported.append(changes)
                signal.yield(())
            }
            // Registers the controller with the main context before it fetches (OB5).
            try controller.performFetch()
            self.controller = controller
            results = controller.fetchedObjects ?? []
        } else {
            results = try request.fetch()
        }
        remember(results)
        return CdResultsChange(
            results: results, inserted: Array(results.indices), deleted: [], updated: [], moved: [],
            isInitial: true)
    }

    /// On the main actor, after a signal: the new results and their difference, or nil when
    /// the commits left them as they were (keeps OB4).
    func step() throws -> CdResultsChange<T>? {
        steps += 1
        guard containerIsOpen() else { return nil }
        if let controller { return followed(controller) }
        let results = try request.fetch()
        let ids = results.map { $0.objectID! }
        let difference = ResultsDifference(old: lastIDs, new: ids, changed: changedSince)
        remember(results, ids)
        guard !difference.isEmpty else { return nil }
        return CdResultsChange(
            results: results, inserted: difference.inserted, deleted: difference.deleted,
            updated: difference.updated, moved: difference.moved.map { ($0.from, $0.to) }, isInitial: false)
    }

    /// The controller's results and the difference from the last delivery: its one report as
    /// it is, or the difference of several (a burst) computed from the two lists (keeps OB4).
    private func followed(_ controller: CdFetchedResultsController<T>) -> CdResultsChange<T>? {
        defer { reported = [] }
        guard !reported.isEmpty else { return nil }
        let results = controller.fetchedObjects ?? []
        let ids = results.map { $0.objectID! }
        var difference = ResultsDifference(old: [], new: [], changed: [])
        if reported.count == 1 {
            // One section: a row is a position.
            for change in reported[0].objects {
                switch change.type {
                case .delete: difference.deleted.append(change.indexPath!.row)
                case .insert: difference.inserted.append(change.newIndexPath!.row)
                case .move: difference.moved.append(.init(from: change.indexPath!.row, to: change.newIndexPath!.row))
                case .update: difference.updated.append(change.newIndexPath!.row)
                }
            }
        } else {
            // An object that left and came back within the burst is in no report as an update:
            // the commits' own list of updated objects says it changed.
            difference = ResultsDifference(old: lastIDs, new: ids, changed: changedSince)
        }
        remember(results, ids)
        guard !difference.isEmpty else { return nil }
        return CdResultsChange(
            results: results, inserted: difference.inserted.sorted(), deleted: difference.deleted.sorted(),
            updated: difference.updated.sorted(), moved: difference.moved.map { ($0.from, $0.to) }, isInitial: false)
    }

    private func remember(_ results: [T], _ ids: [ObjectID]? = nil) {
        last = results
        lastIDs = ids ?? results.map { $0.objectID! }
        changedSince = []
    }

    /// On the main queue after each merge: notes the objects the commit updated and, for a
    /// refetched request, signals, unless it cannot change the results (keeps OB5).
    func mainContextDidMerge(_ applied: AppliedChanges) {
        guard containerIsOpen(), let readSet, readSet.isAffected(by: applied) else { return }
        changedSince.formUnion(applied.updated)
        // A followed request signals through its controller's reports instead.
        if controller == nil { signal.yield(()) }
    }
}
