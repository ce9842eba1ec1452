// Several update handlers per main-context object: `addUpdateHandler` beside Cadmium's single
// `updateHandler`. Each merge into the main context calls, for each event of an object, its
// `updateHandler` first and then its added handlers in the order they were added; a handler
// runs until its token's `remove()`, or for as long as the object lives (the main context
// holds objects weakly: keep the object, as a view does).

import Foundation
import Synchronization

/// One handler added with ``CdManagedObject/addUpdateHandler(_:)``.
struct AddedUpdateHandler {
    let id: UInt64
    let handler: (CdManagedObjectUpdateEvent) -> Void
}

/// Removes a handler added with ``CdManagedObject/addUpdateHandler(_:)``.
///
/// ```swift
/// let token = item.addUpdateHandler { event in print(event) }
/// …
/// token.remove()
/// ```
public final class CdUpdateHandlerToken: @unchecked Sendable {
    // @unchecked: `object` is only read and cleared under `lock`.
    private let lock = NSLock()
    private weak var object: CdManagedObject?
    private let id: UInt64

    private static let nextID = Atomic<UInt64>(1)

    init(object: CdManagedObject?) {
        self.object = object
        id = Self.nextID.wrappingAdd(1, ordering: .relaxed).oldValue
    }

    /// The handler's identity on its object.
    var handlerID: UInt64 { id }

    /// Removes the handler; later calls do nothing. Callable from any thread.
    public func remove() {
        let object = lock.withLock { () -> CdManagedObject? in
            defer { self.object = nil }
            return self.object
        }
        object?.withState { $0.addedUpdateHandlers.removeAll { $0.id == id } }
    }

    /// Whether the handler is still installed on a living object.
    public var isActive: Bool {
        guard let object = lock.withLock({ self.object }) else { return false }
        return object.withState { $0.addedUpdateHandlers.contains { $0.id == id } }
    }
}

extension CdManagedObject {
    /// Adds a handler called on the main queue with the object's events after each commit is
    /// merged into the main context (`.refreshed`, `.updated`, `.deleted`), beside
    /// ``updateHandler`` and any other added handler. Only for main-context objects (check H1:
    /// the misuse is reported and, if the handler returns, nothing is added and the token is
    /// inert).
    ///
    /// ```swift
    /// let title = item.addUpdateHandler { _ in titleLabel.text = item.name }
    /// let badge = item.addUpdateHandler { event in if event == .deleted { badge.hide() } }
    /// …
    /// title.remove()
    /// ```
    @discardableResult
    public func addUpdateHandler(_ handler: @escaping (CdManagedObjectUpdateEvent) -> Void) -> CdUpdateHandlerToken {
        let context = withState { $0.context }
        guard let context, context.kind == .main else {
            Misuse.report(
                .h1,
                "addUpdateHandler called on \(self), which belongs to \(context?.description ?? "no context"). "
                    + "Update handlers are only for objects of the main context: fetch the object on the main "
                    + "thread, or move it there with Cd.onMainWith(_:), and add the handler to that object.")
            return CdUpdateHandlerToken(object: nil)
        }
        let token = CdUpdateHandlerToken(object: self)
        withState { $0.addedUpdateHandlers.append(AddedUpdateHandler(id: token.handlerID, handler: handler)) }
        context.watch(self)
        return token
    }

    /// Whether the object has an ``updateHandler`` or an added handler.
    var hasUpdateHandlers: Bool {
        withState { $0.updateHandler != nil || !$0.addedUpdateHandlers.isEmpty }
    }

    /// Calls ``updateHandler`` and then the added handlers with `event` (on the main queue).
    /// The handlers are read first and called outside the object's lock, so a handler may read
    /// the object or add and remove handlers.
    func sendUpdateEvent(_ event: CdManagedObjectUpdateEvent) {
        let (single, added) = withState { ($0.updateHandler, $0.addedUpdateHandlers.map(\.handler)) }
        single?(event)
        for handler in added { handler(event) }
    }
}
