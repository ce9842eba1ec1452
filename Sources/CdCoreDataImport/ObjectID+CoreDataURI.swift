// Core Data object URIs of an imported store: `x-coredata://<store UUID>/<Entity>/p<Z_PK>`. The
// importer keeps every Z_PK as the object's primary key, so the URI's entity and key name the
// imported object; the store UUID says which store the URI belongs to, and the caller checks it
// against `CoreDataImportReport.storeUUID` (the Cadmium store does not record it: no format change).

import CdObjects
import Foundation

extension ObjectID {
    /// The imported object a Core Data URI names, or nil when `uri` is not an object URI of the
    /// store whose UUID is `storeUUID` (compare the report's `storeUUID`). Temporary URIs (`t…`
    /// keys) name no stored object and give nil.
    ///
    /// ```swift
    /// let id = ObjectID(coreDataURI: URL(string: "x-coredata://E688…/Post/p12")!, storeUUID: report.storeUUID)
    /// ```
    public init?(coreDataURI uri: URL, storeUUID: String) {
        guard uri.scheme == "x-coredata", let host = uri.host, host.caseInsensitiveCompare(storeUUID) == .orderedSame
        else { return nil }
        let parts = uri.path.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.count == 2, parts[1].first == "p", let key = Int64(parts[1].dropFirst()), key > 0 else {
            return nil
        }
        self.init(entity: String(parts[0]), primaryKey: key)
    }
}
