// Key path → property names for managed objects. `@Attribute` and `@Relationship` properties are
// computed (the wrappers route every access through the object), so a key path's description
// does not name them (`\Employee.<computed 0x… (Int64)>`). Instead the key path is evaluated on a
// probe: a context-less instance of the root class whose entity name matches no model, so each
// wrapper access misses the slot tables and reaches `CdManagedObject.slot(_:ordinal:)`'s by-name
// path, which asks `probeSlot(of:_:)` before giving up. The probe records the name, answers a
// slot of its own buffer, and for a to-one relationship puts a probe of the destination class
// behind that slot, so `\.department?.name` goes on to record "name" on the department's probe.
//
// Invariants:
//  TQ3. A probe is registered only while its key path is being evaluated, on the evaluating
//       thread, and removed after; objects that are not registered probes never reach a
//       recorder (the registry is consulted only where a real object would stop the program).
//  TQ4. A probe's buffer has one slot per wrapper of its class hierarchy, and the slot a probe
//       answers for a name is that name's position among them, so every answered slot is in
//       range (MO1 for the probe's own buffer).

import Foundation
import CdObjects
import CdStore

extension CdManagedObject: CdKeyPathRoot {
    /// The `@Attribute` / `@Relationship` names `keyPath` leads through, found by evaluating it
    /// on a probe object (see ManagedObjectKeyPathProbe.swift); nil when a step is not one.
    public static func cdPropertyNames(of keyPath: AnyKeyPath) -> [String]? {
        ManagedObjectKeyPathProbe.names(of: keyPath, root: self)
    }
}

/// Evaluates key paths on probe objects (keeps TQ3, TQ4).
enum ManagedObjectKeyPathProbe {
    /// The entity name of every probe: no model has it (it starts with a NUL).
    static let probeEntity = "\u{0}key-path-probe"

    /// What one evaluation records.
    final class Recording {
        var names: [String] = []
        /// The probes made for this evaluation, unregistered at its end (TQ3).
        var probes: [ObjectIdentifier] = []
    }

    /// One registered probe: its wrapper names (TQ4) and the recording it writes to.
    struct Probe {
        let wrappers: [String: any ProbeWrapper]
        let order: [String]
        let recording: Recording
    }

    /// Registered probes by identity (TQ3).
    private static let probes = LockedState<[ObjectIdentifier: Probe]>([:])

    /// The names `keyPath` leads through from `root`, or nil when a step is not a wrapper.
    static func names(of keyPath: AnyKeyPath, root: CdManagedObject.Type) -> [String]? {
        let recording = Recording()
        defer { probes.withLock { table in for probe in recording.probes { table[probe] = nil } } }  // keeps TQ3
        var made: [CdManagedObject] = []  // kept alive while the key path is evaluated
        let object = makeProbe(root, recording: recording, made: &made)
        _ = object[keyPath: keyPath]
        _ = made
        guard !recording.names.isEmpty else { return nil }
        // A step past the last wrapper (`\.name.count`) records nothing: compare with the number
        // of components the description shows, when it shows them.
        if let components = CdKeyPathNames.describedComponents(keyPath), components.count != recording.names.count {
            return nil
        }
        return recording.names
    }

    /// A registered probe of `cls` writing to `recording` (keeps TQ3, TQ4).
    private static func makeProbe(
        _ cls: CdManagedObject.Type, recording: Recording, made: inout [CdManagedObject]
    ) -> CdManagedObject {
        let object = cls.init()
        var wrappers: [String: any ProbeWrapper] = [:]
        var order: [String] = []
        var mirror: Mirror? = Mirror(reflecting: object)
        while let current = mirror {
            for child in current.children {
                guard let label = child.label, label.hasPrefix("_"), let wrapper = child.value as? any ProbeWrapper
                else { continue }
                let name = String(label.dropFirst())
                if wrappers[name] == nil { order.append(name) }
                wrappers[name] = wrapper
            }
            mirror = current.superclassMirror
        }
        object.withState { state in
            state.entityName = probeEntity
            state.slots = nil
            state.buffer = [PropertyValue?](repeating: nil, count: order.count)  // keeps TQ4
            state.loaded = true
        }
        probes.withLock { $0[ObjectIdentifier(object)] = Probe(wrappers: wrappers, order: order, recording: recording) }
        recording.probes.append(ObjectIdentifier(object))
        made.append(object)
        return object
    }

    /// The slot a probe answers for wrapper `name`, after recording the name; nil when `object`
    /// is not a registered probe (keeps TQ3, TQ4).
    static func slot(of object: CdManagedObject, _ name: String) -> Int? {
        guard let probe = probes.withLock({ $0[ObjectIdentifier(object)] }),
            let slot = probe.order.firstIndex(of: name)
        else { return nil }
        probe.recording.names.append(name)
        if let destination = probe.wrappers[name]?.toOneDestination {
            var made: [CdManagedObject] = []
            let target = makeProbe(destination, recording: probe.recording, made: &made)
            object.withState { $0.transientRelated["#\(slot)"] = [target] }
        }
        return slot
    }
}

/// A wrapper as the probe sees it: a to-one relationship leads on to its destination.
protocol ProbeWrapper {
    /// The destination class of a to-one relationship; nil for attributes and to-many.
    var toOneDestination: CdManagedObject.Type? { get }
}

extension Attribute: ProbeWrapper {
    var toOneDestination: CdManagedObject.Type? { nil }
}

extension Relationship: ProbeWrapper {
    var toOneDestination: CdManagedObject.Type? { Value.cdIsToMany ? nil : Value.cdDestination }
}
