// The base class of every entity class. An object either belongs to one context (the main
// context, or one transaction's context) or to none (a transient object made with
// `Cd.create(_, transient: true)`). Its values live in `state`: what was loaded from the store
// plus the changes made in its context; `@Attribute` and `@Relationship` read and write them
// through `readAttribute` / `writeAttribute` / `readRelationship` / `writeRelationship`, which
// run the confinement checks I, J and K (`CdMisuse.Kind`) first.
//
// Confinement: an object is used on its context's thread (the main thread for the main context,
// the thread running the transaction body for a transaction's context); a transient object on
// any one thread at a time. The checks report any other use. `stateLock` keeps the memory safe
// even when a misuse handler lets a wrong-thread call continue.

import Foundation
import CdObjects
import CdStore

/// What happened to a main-context object, as told to its ``CdManagedObject/updateHandler``.
public enum CdManagedObjectUpdateEvent: Sendable, Hashable {
    /// The object was changed by the store as a side effect of a commit (an inverse kept in
    /// step, a nullified relationship), or re-read by `Cd.useInCurrentContext` on the main thread.
    case refreshed
    /// A commit changed the object's properties.
    case updated
    /// A commit deleted the object (directly or by a cascade).
    case deleted
}

/// The base class of entity classes: subclass it and declare properties with ``Attribute`` and
/// ``Relationship``.
///
/// ```swift
/// final class Employee: CdManagedObject {
///     @Attribute var name: String
///     @Relationship(inverse: "employees") var department: Department?
/// }
/// ```
/// Objects are equal and hash by identity, so `Set<Employee>` works. The entity name is the class
/// name; override ``entityName`` to use another.
///
/// Not `Sendable`: Cadmium's confinement is checked at run time instead (checks I, J, K), so that
/// objects can be handed to `Cd.transactWith` / `Cd.onMainWith` / `Cd.useInCurrentContext` as in
/// Cadmium, and subclasses need no conformance of their own.
open class CdManagedObject: Hashable, PredicateObjectReference, CustomStringConvertible {
    /// The values of one object and where it stands in its context.
    struct State {
        var context: CdManagedObjectContext?
        var objectID: ObjectID?
        var entityName: String
        /// Loaded and changed values: attributes and to-one as stored; to-many once read.
        var values: [String: PropertyValue] = [:]
        /// Attribute and to-one values have been loaded from the store (or set by create).
        var loaded = false
        /// While not `loaded`: keys whose values are in `values` all the same (a fetch with
        /// `onlyProperties`). Reading one of them does not fire the fault.
        var partialKeys: Set<String> = []
        /// While not `loaded`: the fetch's batch (`batchSize`) that loads this object and its
        /// neighbours together when one of them is first read.
        var batch: FaultBatch?
        /// Keys changed in the context since the last commit.
        var changedKeys: Set<String> = []
        var isInserted = false
        var isDeleted = false
        var updateHandler: ((CdManagedObjectUpdateEvent) -> Void)?
        /// Relationships of a transient object (no context).
        var transientRelated: [String: [CdManagedObject]] = [:]
    }

    let stateLock = Lock()
    var state: State

    /// Scratch data for this instance; never stored.
    public var userInfo: [String: Any] = [:]

    /// A new object with no context; the `Cd` API creates objects, so call ``Cd/create(_:transient:)``
    /// rather than this initialiser.
    public required init() {
        state = State(entityName: Self.cachedEntityName)
    }

    /// The entity name of this class: the unqualified class name unless overridden.
    open class var entityName: String { String(describing: self) }

    /// ``entityName``, asked once per class: describing a class costs about a microsecond, and
    /// every object made and every fetch asks. (An override that answers differently from one
    /// call to the next is not a supported entity name.)
    static var cachedEntityName: String {
        let key = ObjectIdentifier(self)
        if let name = EntityNames.cache.withLock({ $0[key] }) { return name }
        let name = entityName
        EntityNames.cache.withLock { $0[key] = name }
        return name
    }

    /// The object's permanent ID, or nil for a transient object that was never inserted.
    public var objectID: ObjectID? { withState { $0.objectID } }

    /// The context the object belongs to, or nil for a transient object.
    public var managedObjectContext: CdManagedObjectContext? { withState { $0.context } }

    /// Whether the object was deleted in its context (or by a commit).
    public var isDeleted: Bool { withState { $0.isDeleted } }

    /// Whether the object has changes in its context that are not committed yet.
    public var hasChanges: Bool { withState { $0.isInserted || $0.isDeleted || !$0.changedKeys.isEmpty } }

    /// Called on the main queue with the object's events after each commit is merged into the
    /// main context. One handler per object; only for main-context objects (check H1).
    ///
    /// ```swift
    /// item.updateHandler = { event in if event == .deleted { dismiss() } }
    /// ```
    public var updateHandler: ((CdManagedObjectUpdateEvent) -> Void)? {
        get { withState { $0.updateHandler } }
        set {
            let context = withState { $0.context }
            guard let context, context.kind == .main else {
                Misuse.report(
                    .h1,
                    "updateHandler set on \(self), which belongs to \(context?.description ?? "no context"). "
                        + "Update handlers are only for objects of the main context: "
                        + "fetch the object on the main thread, "
                        + "or move it there with Cd.onMainWith(_:), and set the handler on that object.")
                return
            }
            withState { $0.updateHandler = newValue }
            context.watch(self)
        }
    }

    func withState<R>(_ body: (inout State) throws -> R) rethrows -> R {
        try stateLock.withLock { try body(&state) }
    }

    // MARK: - Hashable by identity

    /// Identity: the same instance.
    public static func == (lhs: CdManagedObject, rhs: CdManagedObject) -> Bool { lhs === rhs }
    /// Hashes the instance's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// Predicate arguments (`department == %@`) compare by object ID.
    public var predicateIdentity: AnyHashable {
        objectID.map { AnyHashable($0) } ?? AnyHashable(ObjectIdentifier(self))
    }

    /// `<Entity Entity/42 ObjectIdentifier(…)>`, for messages.
    public var description: String {
        let (id, entity) = withState { ($0.objectID, $0.entityName) }
        return "<\(entity) \(id.map { "\($0)" } ?? "transient, no ID") \(ObjectIdentifier(self))>"
    }

    // MARK: - Property names

    /// The property name of the wrapper stored at `keyPath` (whose slot is `slot`): found once
    /// per class and key path by reflecting on the object, then cached.
    func propertyName(_ keyPath: AnyKeyPath, slot: Int) -> String {
        if let name = PropertyNames.cache.withLock({ $0[keyPath] }) { return name }
        var mirror: Mirror? = Mirror(reflecting: self)
        while let current = mirror {
            for child in current.children {
                if let wrapper = child.value as? CdPropertyWrapper, wrapper.slot == slot, let label = child.label {
                    let name = label.hasPrefix("_") ? String(label.dropFirst()) : label
                    PropertyNames.cache.withLock { $0[keyPath] = name }
                    return name
                }
            }
            mirror = current.superclassMirror
        }
        preconditionFailure("property wrapper of \(type(of: self)) not found by reflection")
    }
}

/// Class → entity name, shared by all classes.
enum EntityNames {
    static let cache = LockedState<[ObjectIdentifier: String]>([:])
}

/// Key path → property name, shared by all classes.
enum PropertyNames {
    static let cache = LockedState<[AnyKeyPath: String]>([:])
}

/// Carries a value the compiler cannot prove `Sendable` to another thread. Used where Cadmium's
/// design hands objects and closures between threads and confinement is checked at run time.
struct Unchecked<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
