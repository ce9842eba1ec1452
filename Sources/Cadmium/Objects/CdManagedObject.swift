// The base class of every entity class. An object either belongs to one context (the main
// context, or one transaction's context) or to none (a transient object made with
// `Cd.create(_, transient: true)`). Its values live in `state`, in a buffer indexed by property
// slot: what was loaded from the store plus the changes made in its context. `@Attribute` and
// `@Relationship` find their slot once per class (`ObjectSlots`) and read and write through
// `readAttribute` / `writeAttribute` / `readRelationship` / `writeRelationship`, which run the
// confinement checks I, J and K (`CdMisuse.Kind`) first.
//
// Confinement: an object is used on its context's thread (the main thread for the main context,
// the thread running the transaction body for a transaction's context); a transient object on
// any one thread at a time. The checks report any other use. The object's lock (one of the
// shared `ObjectLocks`, not one per object) keeps the memory safe even when a misuse handler
// lets a wrong-thread call continue.

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
    /// The values of one object and where it stands in its context. Values live in a buffer
    /// indexed by the entity's property slots (`ObjectSlots`, the store's slot vocabulary); the
    /// by-name views below (`values`, `changedKeys`, `partialKeys`) convert, for the code that
    /// works in names.
    ///
    /// Invariants:
    ///  MO1. When `slots` is set, `buffer.count == slots.count`; `buffer[s] == nil` means slot
    ///       `s` holds no value (not loaded, or a to-many not read yet). Names the entity lacks
    ///       (an object whose entity the model does not know) live in `extra`.
    ///  MO2. `changed` holds the slots changed in the context since the last commit; `listed`
    ///       says the context has the object in its list of changed objects.
    ///  MO3. `deferredListEdits` only names slots whose `buffer` entry is nil (a to-many not read
    ///       yet); reading the list applies them first, in order.
    ///  MO4. `listChanges[s]` holds every link the context added to or removed from the carried
    ///       to-many in slot `s` of a stored object since the last commit (read or not): a commit
    ///       carries these deltas, never the list, so links other transactions made meanwhile are kept.
    ///  MO5. `readValues`, once set, is the buffer as the context read it before its first
    ///       attribute write since the last commit: the store compares it with what is stored at
    ///       commit time to find conflicts (`MergePolicy`).
    struct State {
        var context: CdManagedObjectContext?
        var objectID: ObjectID?
        var entityName: String
        /// The entity's slots; nil until the object's entity is resolved in a model.
        var slots: ObjectSlots?
        /// Loaded and changed values by slot: attributes and to-one as stored; to-many once read (MO1).
        var buffer: [PropertyValue?] = []
        /// Values of names outside `slots` (MO1).
        var extra: [String: PropertyValue] = [:]
        /// Attribute and to-one values have been loaded from the store (or set by create).
        var loaded = false
        /// While not `loaded`: slots whose values are in `buffer` all the same (a fetch with
        /// `onlyProperties`). Reading one of them does not fire the fault.
        var partial = SlotSet()
        /// While not `loaded`: the fetch's batch (`batchSize`) that loads this object and its
        /// neighbours together when one of them is first read.
        var batch: FaultBatch?
        /// Slots changed in the context since the last commit (MO2).
        var changed = SlotSet()
        /// Names outside `slots` changed since the last commit.
        var changedExtra: Set<String> = []
        /// The context lists the object as changed (MO2).
        var listed = false
        var isInserted = false
        var isDeleted = false
        var updateHandler: ((CdManagedObjectUpdateEvent) -> Void)?
        /// Handlers added with `addUpdateHandler`, in the order added.
        var addedUpdateHandlers: [AddedUpdateHandler] = []
        /// Relationships of a transient object (no context).
        var transientRelated: [String: [CdManagedObject]] = [:]
        /// Inverse edits of to-many lists not read yet (MO3).
        var deferredListEdits: [DeferredListEdit] = []
        /// Links added and removed per to-many slot since the last commit (MO4).
        var listChanges: [Int: ToManyDelta] = [:]
        /// The values read before the first attribute write since the last commit (MO5).
        var readValues: [PropertyValue?]?
        /// The number of wrappers initialised with the object (`WrapperOrdinals`): its wrappers'
        /// ordinals end here.
        var wrapperEnd = 0

        /// Whether there are changes not committed yet.
        var hasChangedValues: Bool { !changed.isEmpty || !changedExtra.isEmpty }

        /// Resolves `slots` from the running container's model if not done yet (keeps MO1).
        mutating func resolveSlots() {
            guard slots == nil, let table = Cd.container?.model.slots(of: entityName) else { return }
            adopt(table)
        }

        /// Moves the values to `table`'s slots (keeps MO1).
        mutating func adopt(_ table: ObjectSlots) {
            let old = values, oldChanged = changedKeys, oldPartial = partialKeys
            slots = table
            buffer = [PropertyValue?](repeating: nil, count: table.count)
            extra = [:]
            values = old
            changedKeys = oldChanged
            partialKeys = oldPartial
        }

        /// The slot of `name`, resolving the table first.
        mutating func slot(of name: String) -> Int? {
            resolveSlots()
            return slots?.slot(of: name)
        }

        /// The value of `name`.
        mutating func value(_ name: String) -> PropertyValue? {
            if let slot = slot(of: name) { return buffer[slot] }
            return extra[name]
        }

        /// Sets the value of `name` (nil removes it).
        mutating func setValue(_ value: PropertyValue?, _ name: String) {
            if let slot = slot(of: name) { buffer[slot] = value } else { extra[name] = value }
        }

        /// Notes that `name` changed.
        mutating func markChanged(_ name: String) {
            if let slot = slot(of: name) { changed.insert(slot) } else { changedExtra.insert(name) }
        }

        /// Values by name (a view of `buffer` and `extra`).
        var values: [String: PropertyValue] {
            get {
                var result = extra
                if let slots {
                    for (slot, value) in buffer.enumerated() {
                        if let value { result[slots.name(of: slot)] = value }
                    }
                }
                return result
            }
            set {
                resolveSlots()
                if let slots {
                    (buffer, extra) = slots.buffer(from: newValue)
                } else {
                    extra = newValue
                }
            }
        }

        /// Changed keys by name (a view of `changed` and `changedExtra`).
        var changedKeys: Set<String> {
            get {
                var result = changedExtra
                if let slots { for slot in changed.slots { result.insert(slots.name(of: slot)) } }
                return result
            }
            set {
                changed.removeAll()
                changedExtra = []
                for key in newValue { markChanged(key) }
            }
        }

        /// `partial` by name.
        var partialKeys: Set<String> {
            get {
                guard let slots else { return [] }
                return Set(partial.slots.map { slots.name(of: $0) })
            }
            set {
                partial.removeAll()
                for key in newValue { if let slot = slot(of: key) { partial.insert(slot) } }
            }
        }
    }

    /// Guarded by the object's lock (`ObjectLocks`, OL1).
    var state: State

    /// Scratch data for this instance; never stored.
    public var userInfo: [String: Any] = [:]

    /// A new object with no context; the `Cd` API creates objects, so call ``Cd/create(_:transient:)``
    /// rather than this initialiser.
    public required init() {
        state = State(entityName: Self.cachedEntityName)
        state.wrapperEnd = WrapperOrdinals.finishObject()
    }

    /// Gives a new object of `entity` its defaults (attribute defaults, empty relationships),
    /// as `Cd.create` does.
    func prepareNew(entity: String, in model: CdModel) {
        let table = model.slots(of: entity)
        withState { state in
            state.entityName = entity
            if let table {
                state.slots = table
                state.buffer = table.newValues
            } else {
                state.values = Cd.defaultValues(of: entity, in: model.objectModel)
            }
            state.loaded = true
        }
    }

    /// The entity name of this class: the unqualified class name unless overridden.
    // `_typeName(qualified: false)` is what `String(describing:)` prints for a class, without its
    // protocol casts (the first cast of each type costs the runtime a scan of every conformance).
    open class var entityName: String { _typeName(self, qualified: false) }

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
    public var hasChanges: Bool { withState { $0.isInserted || $0.isDeleted || $0.hasChangedValues } }

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

    /// Runs `body` on the state under the object's lock (keeps OL1: `body` takes no other lock).
    @inline(__always)
    func withState<R>(_ body: (inout State) throws -> R) rethrows -> R {
        try ObjectLocks.lock(for: self).withLock { try body(&state) }
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

    // MARK: - Property slots

    /// The slot of the wrapper stored at `keyPath` whose ordinal is `ordinal`: one array read
    /// for an instance of the entity's own class (OSL1); otherwise found by name.
    @inline(__always) @usableFromInline
    func slot(_ keyPath: AnyKeyPath, ordinal: Int) -> Int {
        let found = withState { state -> Int? in
            state.resolveSlots()
            guard let slots = state.slots, slots.boundClass == type(of: self) else { return nil }
            let index = ordinal - (state.wrapperEnd - slots.wrapperSlots.count)
            guard index >= 0, index < slots.wrapperSlots.count else { return nil }
            let slot = slots.wrapperSlots[index]
            return slot >= 0 ? slot : nil
        }
        if let found { return found }
        let name = propertyName(keyPath, ordinal: ordinal)
        let slot = withState { $0.slot(of: name) }
        guard let slot else {
            // A key-path probe answers for each of its wrappers (ManagedObjectKeyPathProbe, TQ3).
            if let probed = ManagedObjectKeyPathProbe.slot(of: self, name) { return probed }
            preconditionFailure("\(type(of: self)).\(name) is not a property of entity \(withState { $0.entityName })")
        }
        return slot
    }

    /// The property name of the wrapper stored at `keyPath` (whose ordinal is `ordinal`): found
    /// once per class and key path by reflecting on the object, then cached.
    func propertyName(_ keyPath: AnyKeyPath, ordinal: Int) -> String {
        if let name = PropertyNames.cache.withLock({ $0[keyPath] }) { return name }
        var mirror: Mirror? = Mirror(reflecting: self)
        while let current = mirror {
            for child in current.children {
                if let wrapper = child.value as? CdPropertyWrapper, wrapper.ordinal == ordinal,
                    let label = child.label
                {
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

/// One inverse edit of a to-many list that was not read yet (MO3).
struct DeferredListEdit {
    /// Edits kept per object before the list is read and edited in place.
    static let limit = 64
    let slot: Int
    let member: ObjectID
    /// Adds `member` (else removes it).
    let adds: Bool
    let ordered: Bool

    /// Applies the edit to the list as read (keeps ToManyList's invariants).
    func apply(to list: inout [ObjectID]) {
        if adds {
            ToManyList.insert(member, into: &list, ordered: ordered)
        } else {
            ToManyList.remove(member, from: &list, ordered: ordered)
        }
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
