// A SwiftData model that is not the shared-store test's schema (SharedStoreFileTests.swift): a
// container of it on a file open with that schema must be refused. A file of its own that imports
// SwiftData alone, as SharedStoreModels.swift is.

import Foundation
import SwiftData

@Model
final class OtherTrip {
    var title: String

    init(title: String) { self.title = title }
}
