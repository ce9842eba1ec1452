// `CdFetchedResultsController`: Core Data's NSFetchedResultsController, which Linux lacks, rebuilt
// on the main context (`Cd.newFetchedResultsController`; docs/CADMIUM-API.md §3). It holds the
// results of one `CdFetchRequest`, split into sections by `sectionNameKeyPath`, and after each
// commit is merged into the main context it applies the commit's objects to its results
// (`+Incremental.swift`; a refetch and diff only where that cannot decide, `+Diff.swift`) and
// tells its delegate and its `onChange` closure what moved. The results are kept in sort order
// in chunks (`SortedResults`); `fetchedObjects` and `sections` are built from them when read.
//
// Invariants:
//   RC1. `fetchedObjects` is the request's result in the main context as of the last
//        `performFetch` or merge; `sections` partitions it in order (no empty section).
//   RC2. With a section key path, the request sorts by that key path first, so equal section
//        names are contiguous (checked by `performFetch`, as Core Data requires).
//   RC3. Callbacks run on the main queue, inside one merge, willChange → section changes →
//        object changes → didChange; a merge whose refetch equals the old results (and updates
//        none of them) makes no callback.
//
// Confinement: the main queue (the main context's). `performFetch`, the results and the
// callbacks belong there; `performFetch` elsewhere is misuse I1.

import Foundation
import CdObjects

/// A position in a sectioned result: `section`, then `row` inside it.
public struct CdIndexPath: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The row inside its section.
    public var row: Int
    /// The section index.
    public var section: Int

    /// `CdIndexPath(row: 2, section: 0)`, as UIKit's `IndexPath(row:section:)`.
    public init(row: Int, section: Int) {
        self.row = row
        self.section = section
    }

    /// Section first, then row.
    public static func < (lhs: CdIndexPath, rhs: CdIndexPath) -> Bool {
        (lhs.section, lhs.row) < (rhs.section, rhs.row)
    }

    /// `[section, row]`.
    public var description: String { "[\(section), \(row)]" }
}

/// What happened to an object or a section, as NSFetchedResultsChangeType.
public enum CdFetchedResultsChangeType: Sendable, Hashable {
    /// New in the results (`newIndexPath` set).
    case insert
    /// Gone from the results (`indexPath` set).
    case delete
    /// Changed position or section (`indexPath` and `newIndexPath` set).
    case move
    /// Changed by a commit, same position (`indexPath` and `newIndexPath` set).
    case update
}

/// One section of a controller's results.
public struct CdFetchedResultsSection<T: CdManagedObject> {
    /// The section key path's value, as text (`""` for nil); `""` when there is no key path.
    public let name: String
    /// The section's objects, in the request's order.
    public let objects: [T]
    /// `objects.count`.
    public var numberOfObjects: Int { objects.count }
}

/// One change of an object, as passed to ``CdFetchedResultsControllerDelegate`` and in
/// ``CdFetchedResultsChanges``.
public struct CdFetchedResultsObjectChange<T: CdManagedObject> {
    /// The object (a main-context object).
    public let object: T
    /// What happened.
    public let type: CdFetchedResultsChangeType
    /// The position before the change (nil for an insert).
    public let indexPath: CdIndexPath?
    /// The position after the change (nil for a delete).
    public let newIndexPath: CdIndexPath?
}

/// One change of a section: a section name that appeared or disappeared.
public struct CdFetchedResultsSectionChange: Sendable, Hashable {
    /// The section's name.
    public let name: String
    /// Its index: in the old sections for a delete, in the new ones for an insert.
    public let index: Int
    /// `.insert` or `.delete`.
    public let type: CdFetchedResultsChangeType
}

/// Everything one merge changed in a controller's results, for ``CdFetchedResultsController/onChange``.
public struct CdFetchedResultsChanges<T: CdManagedObject> {
    /// Sections deleted (old indexes) and inserted (new indexes).
    public let sections: [CdFetchedResultsSectionChange]
    /// Objects deleted, inserted, moved and updated, in that order.
    public let objects: [CdFetchedResultsObjectChange<T>]
}

/// The delegate of a ``CdFetchedResultsController``, called on the main queue after each commit
/// that changed its results is merged into the main context. Every method has an empty default.
///
/// ```swift
/// final class ListModel: CdFetchedResultsControllerDelegate {
///     func controller(_ controller: AnyObject, didChange object: CdManagedObject, at indexPath: CdIndexPath?,
///                     for type: CdFetchedResultsChangeType, newIndexPath: CdIndexPath?) {
///         print(type, indexPath as Any, newIndexPath as Any)
///     }
/// }
/// ```
public protocol CdFetchedResultsControllerDelegate: AnyObject {
    /// Before the first change of a merge.
    func controllerWillChangeContent(_ controller: AnyObject)
    /// A section appeared (`.insert`, new index) or disappeared (`.delete`, old index).
    func controller(
        _ controller: AnyObject, didChangeSection name: String, atSectionIndex index: Int,
        for type: CdFetchedResultsChangeType)
    /// An object was inserted, deleted, moved or updated.
    func controller(
        _ controller: AnyObject, didChange object: CdManagedObject, at indexPath: CdIndexPath?,
        for type: CdFetchedResultsChangeType, newIndexPath: CdIndexPath?)
    /// After the last change of a merge; the controller's results are the new ones.
    func controllerDidChangeContent(_ controller: AnyObject)
}

extension CdFetchedResultsControllerDelegate {
    /// Does nothing.
    public func controllerWillChangeContent(_ controller: AnyObject) {}
    /// Does nothing.
    public func controller(
        _ controller: AnyObject, didChangeSection name: String, atSectionIndex index: Int,
        for type: CdFetchedResultsChangeType
    ) {}
    /// Does nothing.
    public func controller(
        _ controller: AnyObject, didChange object: CdManagedObject, at indexPath: CdIndexPath?,
        for type: CdFetchedResultsChangeType, newIndexPath: CdIndexPath?
    ) {}
    /// Does nothing.
    public func controllerDidChangeContent(_ controller: AnyObject) {}
}

/// Notified by the main context after each merge (internal seam for the controllers).
protocol MainMergeObserver: AnyObject {
    func mainContextDidMerge(_ applied: AppliedChanges)
}

/// The results of a request in the main context, in sections, kept up to date after each commit.
///
/// ```swift
/// let controller = Cd.newFetchedResultsController(
///     Cd.objects(Employee.self).sorted("department.name").sorted("name"),
///     sectionNameKeyPath: "department.name", cacheName: nil)
/// controller.delegate = listModel            // or controller.onChange = { changes in … }
/// try controller.performFetch()              // on the main thread
/// let first = controller.object(at: CdIndexPath(row: 0, section: 0))
/// ```
///
/// Bound to the main context and used on the main queue. After each commit is merged into the
/// main context, the controller tests the commit's objects against the predicate and places them
/// by the sort, without re-running its fetch (it refetches only where a key path through a
/// relationship whose other side changed, or a limit or offset, leaves it unable to decide;
/// docs/OBSERVING.md); changes go to ``delegate`` and then ``onChange``, on the main queue. A
/// commit that does not change the results makes no call.
public final class CdFetchedResultsController<T: CdManagedObject> {
    /// The request; changing it takes effect at the next ``performFetch()``.
    public let fetchRequest: CdFetchRequest<T>
    /// The key path whose value names each object's section (an attribute, or a key path
    /// through to-one relationships such as `department.name`); nil for one unnamed section.
    public let sectionNameKeyPath: String?
    /// Accepted for Core Data compatibility and unused: results are not cached on disk (a
    /// refetch reads the store's indexes directly).
    public let cacheName: String?
    /// Told of each change after a merge; held weakly, as Core Data's.
    public weak var delegate: (any CdFetchedResultsControllerDelegate)?
    /// Called after the delegate with all the changes of one merge.
    public var onChange: ((CdFetchedResultsChanges<T>) -> Void)?

    /// The results in sort order, or nil before ``performFetch()`` (OB7–OB9).
    var results: SortedResults<ResultEntry>?
    /// The entry of each result, by object ID.
    var entries: [ObjectID: ResultEntry] = [:]
    /// The sections' names and sizes, in order (RC1).
    var sectionCounts: [SectionCount] = []
    /// How a merge is applied without a refetch; nil: the request can only be refetched.
    var plan: IncrementalPlan?
    /// The entities the results depend on: a commit that touches none of them is skipped.
    var readSet: QueryReadSet?
    /// Set when an incremental update failed: the next merge refetches.
    var needsRefetch = false
    /// `fetchedObjects` and `sections` as last built (they are built when first read after a change).
    var cachedObjects: [T]?
    var cachedSections: [CdFetchedResultsSection<T>]?

    /// How long the last merge took to bring the results up to date (not counting the
    /// delegate's and `onChange`'s calls), and whether it did so incrementally. For benchmarks.
    @_spi(Benchmarks) public internal(set) var lastUpdate: (duration: Duration, incremental: Bool)?

    /// The results of the last fetch, or nil before ``performFetch()``.
    public var fetchedObjects: [T]? {
        guard let results else { return nil }
        if let cachedObjects { return cachedObjects }
        let objects = results.elements.map { unsafeDowncast($0.object, to: T.self) }
        cachedObjects = objects
        return objects
    }

    /// The results in sections, or nil before ``performFetch()``.
    public var sections: [CdFetchedResultsSection<T>]? {
        guard let results else { return nil }
        if let cachedSections { return cachedSections }
        let objects = fetchedObjects ?? []
        var start = 0
        let built = sectionCounts.map { section -> CdFetchedResultsSection<T> in
            defer { start += section.count }
            return CdFetchedResultsSection(name: section.name, objects: Array(objects[start..<start + section.count]))
        }
        precondition(start == results.count, "sections out of step with the results (RC1)")
        cachedSections = built
        return built
    }

    /// The main context the controller is registered with for merges.
    weak var observedContext: CdManagedObjectContext?

    /// A controller on the main context. Reports misuse A1 before `Cd.initWithStore` (and
    /// ``performFetch()`` then throws it).
    ///
    /// - Parameters:
    ///   - fetchRequest: the query; with a section key path it must sort by it first.
    ///   - sectionNameKeyPath: names the sections; nil for one section.
    ///   - cacheName: accepted and unused (see ``cacheName``).
    public init(fetchRequest: CdFetchRequest<T>, sectionNameKeyPath: String?, cacheName: String?) {
        self.fetchRequest = fetchRequest
        self.sectionNameKeyPath = sectionNameKeyPath
        self.cacheName = cacheName
        _ = try? Cd.requireContainer("CdFetchedResultsController.init(fetchRequest:sectionNameKeyPath:cacheName:)")
    }

    /// Runs the request in the main context and registers for changes. On the main thread.
    ///
    /// - Throws: misuse A1 before `Cd.initWithStore`, I1 off the main thread;
    ///   `CdError.validation` when a section key path is not the first sort key; fetch errors.
    public func performFetch() throws {
        let container = try Cd.requireContainer("CdFetchedResultsController.performFetch()")
        guard ThreadState.isMain else {
            throw Misuse.report(
                .i1,
                "CdFetchedResultsController.performFetch() on \(fetchRequest.request.entity) was called "
                    + "\(ThreadState.situation). A fetched results controller belongs to the main context: "
                    + "call performFetch() "
                    + "on the main thread (its changes are delivered there too).")
        }
        if let sectionNameKeyPath, fetchRequest.request.sortDescriptors.first?.key != sectionNameKeyPath {
            let first = fetchRequest.request.sortDescriptors.first.map { "'\($0.key)'" } ?? "no sort key"
            throw CdError.validation(
                ValidationFailure(
                    entity: fetchRequest.request.entity, objectID: nil, key: sectionNameKeyPath,
                    message:
                        "the fetched results controller's sectionNameKeyPath '\(sectionNameKeyPath)' "
                        + "must be the request's first sort key (it has \(first)): "
                        + "add .sorted(\"\(sectionNameKeyPath)\") before the other sort keys"
                ))
        }
        let model = container.model.objectModel
        plan = IncrementalPlan(request: fetchRequest.request, sectionNameKeyPath: sectionNameKeyPath, model: model)
        readSet = QueryReadSet(
            fetchRequest.request, extraKeyPaths: sectionNameKeyPath.map { [$0] } ?? [], model: model)
        let objects = try fetchRequest.fetch()
        replaceResults(with: objects)
        if observedContext !== container.main {
            container.main.observeMerges(self)
            observedContext = container.main
        }
    }

    /// The object at `indexPath` (traps when out of range, as Core Data does).
    public func object(at indexPath: CdIndexPath) -> T {
        guard let results, sectionCounts.indices.contains(indexPath.section),
            (0..<sectionCounts[indexPath.section].count).contains(indexPath.row)
        else {
            preconditionFailure(
                "CdFetchedResultsController.object(at: \(indexPath)): no such index path "
                    + "(\(sectionCounts.count) sections; call performFetch() first)")
        }
        let start = sectionCounts[..<indexPath.section].reduce(0) { $0 + $1.count }
        return unsafeDowncast(results.element(at: start + indexPath.row).object, to: T.self)
    }

    /// Where `object` is in the results, or nil.
    public func indexPath(forObject object: T) -> CdIndexPath? {
        guard let results, let id = object.objectID, let entry = entries[id], entry.object === object,
            let position = results.index(of: entry)
        else { return nil }
        return SectionCount.indexPath(of: position, in: sectionCounts)
    }

    /// The section names, in order.
    public var sectionIndexTitles: [String] { sectionCounts.map(\.name) }

    /// The value of `keyPath` on `object` as text: to-one relationships are followed, nil is "".
    func sectionName(of object: CdManagedObject, _ keyPath: String) -> String {
        let keys = keyPath.split(separator: ".").map(String.init)
        var current: CdManagedObject? = object
        for key in keys.dropLast() { current = current?.readRelationship(key).first }
        guard let current, let last = keys.last else { return "" }
        if let model = current.managedObjectContext?.container.model.objectModel,
            model.relationship(last, of: current.withState({ $0.entityName })) != nil
        {
            return current.readRelationship(last).first?.objectID.map { "\($0)" } ?? ""
        }
        return current.readAttribute(last).anyValue.map { "\($0)" } ?? ""
    }
}

extension Cd {
    /// A fetched results controller on the main context (Cadmium's `newFetchedResultsController`).
    ///
    /// ```swift
    /// let controller = Cd.newFetchedResultsController(Cd.objects(Item.self).sorted("name"),
    ///                                                 sectionNameKeyPath: nil, cacheName: nil)
    /// try controller.performFetch()
    /// ```
    public static func newFetchedResultsController<T: CdManagedObject>(
        _ fetchRequest: CdFetchRequest<T>, sectionNameKeyPath: String?, cacheName: String?
    ) -> CdFetchedResultsController<T> {
        CdFetchedResultsController(
            fetchRequest: fetchRequest, sectionNameKeyPath: sectionNameKeyPath, cacheName: cacheName)
    }
}
