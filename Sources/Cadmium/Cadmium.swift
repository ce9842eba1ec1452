// Module Cadmium: contexts, managed objects and the `Cd` API on top of the object store.
@_exported import CdObjects
@_exported import CdStore
