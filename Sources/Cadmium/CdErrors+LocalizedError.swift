// Foundation's `localizedDescription` of Cadmium's own errors is their description (the misuse
// with its check and advice, the typed query's key path), not "The operation could not be
// completed", which is what a log line built from `error.localizedDescription` would say.

import Foundation

extension CdMisuse: LocalizedError {
    /// The same text as ``description``.
    public var errorDescription: String? { description }
}

extension CdQueryError: LocalizedError {
    /// The same text as ``description``.
    public var errorDescription: String? { description }
}
