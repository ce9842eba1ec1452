// Foundation's `localizedDescription` of the object store's errors is their description: without
// `LocalizedError` it would be "The operation could not be completed (CdObjects.CdError error 1.)",
// which names neither the object nor the key, and is what a server's log line often prints.

import Foundation

extension CdError: LocalizedError {
    /// The same text as ``description``: entity, object, key, call and Core Data's code.
    public var errorDescription: String? { description }
}

extension MigrationError: LocalizedError {
    /// The same text as ``description``.
    public var errorDescription: String? { description }
}
