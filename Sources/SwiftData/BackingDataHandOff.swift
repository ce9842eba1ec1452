// How a context gives a model it makes from the store its backing data without a throwaway. The
// expansion of `@Model` declares `_$backingData = Model.createBackingData()`, as Apple's does, so
// every initializer — `init(backingData:)` too — first makes default backing data, and the
// property defaults of the class (an optional's implicit `nil` included) are then written into it
// through the init accessors, before `init(backingData:)` puts the given backing data in its place.
// For each fetched model that was a second storage, its slot array and a write per default, all
// thrown away at once. So the context, while it runs `init(backingData:)`, hands its storage to
// `createBackingData()` through the thread, and that storage ignores the initial values written
// before it is bound to its model.
//
// Invariants:
//  BH1. A storage is handed over only for the duration of one `init(backingData:)` call on the
//       calling thread, and taken at most once: by the first `createBackingData()` of its own
//       model class on that thread, which then returns it instead of new storage. Anything else
//       (another class, no call) leaves it, and the hand-off ends with the call either way, so no
//       other initializer ever sees it.
//  BH2. A handed storage drops the values written into it until `bindOwner` binds it to its
//       model (ModelStorage MS10): those are the class's declared defaults, which a model read
//       from the store never takes (its values come from the record, or from the store on first
//       access), exactly as when they went into the throwaway storage.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The storage a context is handing to the model it makes (BH1), per thread.
enum BackingDataHandOff {
    /// The thread-specific slot holding the storage being handed over, unretained (the caller of
    /// `handing` holds it for the whole call).
    private static let slot: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "pthread_key_create failed (\(status)): no thread-specific slot is left")
        return key
    }()

    /// Runs `make` (which calls `init(backingData: storage)`) with `storage` handed over (BH1).
    static func handing<Model: PersistentModel>(_ storage: ModelStorage<Model>, _ make: () -> Model) -> Model {
        pthread_setspecific(slot, Unmanaged.passUnretained(storage).toOpaque())
        defer { pthread_setspecific(slot, nil) }
        return make()
    }

    /// The storage handed over on this thread, if it is one of `Model`'s; taking it ends the hand-off
    /// (BH1).
    static func take<Model: PersistentModel>(_: Model.Type) -> ModelStorage<Model>? {
        guard let raw = pthread_getspecific(slot) else { return nil }
        guard let storage = Unmanaged<AnyObject>.fromOpaque(raw).takeUnretainedValue() as? ModelStorage<Model> else {
            return nil
        }
        pthread_setspecific(slot, nil)
        return storage
    }
}
