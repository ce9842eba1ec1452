// Loading an object's values in slot form: what a fetch read for it (`fetchSlotObjects`, FP1 in
// ObjectSnapshot+SlotFetch.swift) becomes its value buffer as it is, without a dictionary keyed
// by property name in between.

import CdObjects

extension CdManagedObject {
    /// ``refresh(with:)`` from a buffer of the entity's stored slots (attributes, to-ones, and
    /// nil to-manys; transient slots may be missing and are then left empty). Returns false, and
    /// changes nothing, when the buffer does not fit the object's slot table: the caller then
    /// refreshes by name.
    func refresh(withSlots values: [PropertyValue?]?) -> Bool {
        withState { state in
            guard !state.hasChangedValues, !state.isInserted else { return true }
            guard let values else {
                state.values = [:]
                state.loaded = false
                state.partial.removeAll()
                state.batch = nil
                return true
            }
            state.resolveSlots()
            guard let slots = state.slots, values.count == slots.properties.storedCount,
                values.count <= slots.count
            else { return false }
            // Keeps MO1: the buffer gets exactly `slots.count` entries.
            if values.count == slots.count {
                state.buffer = values
            } else {
                var buffer = values
                buffer.append(contentsOf: repeatElement(nil, count: slots.count - values.count))
                state.buffer = buffer
            }
            if !state.extra.isEmpty { state.extra = [:] }
            state.loaded = true
            state.partial.removeAll()
            state.batch = nil
            return true
        }
    }
}
