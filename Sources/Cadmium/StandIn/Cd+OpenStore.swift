// Which object store `Cd.initWithStore` opens. Until `ObjectStore` lands from branch `objects`
// this is the in-memory stand-in for every URL (a file store is not written yet); once it lands,
// `ObjectStore.open(path:model:)` replaces it here.

import Foundation
import CdObjects

extension Cd {
    static func openStore(model: CdModel, storeURL: URL?) throws -> any StoreBackend {
        StandInObjectStore(model: model.objectModel)
    }
}
