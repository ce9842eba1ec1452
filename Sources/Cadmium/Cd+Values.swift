// `Cd.values`: queries that return value types (docs/VALUES.md).

import Foundation
import CdObjects

extension Cd {
    /// A query for values of `T`, with the chain of ``objects(_:)``; its results are values,
    /// which may cross threads freely.
    ///
    /// ```swift
    /// let shops = try Cd.values(Shop.self).filter("name BEGINSWITH %@", "H").sorted("name").fetch()
    /// ```
    public static func values<T: CdManagedStruct>(_ valueType: T.Type) -> CdValueRequest<T> {
        CdValueRequest<T>()
    }
}
