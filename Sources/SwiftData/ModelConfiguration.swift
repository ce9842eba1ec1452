// Where and how a container stores its models: a file (`url:`, or a file named after the
// configuration in the application support directory), or memory; whether saves are allowed.
// CloudKit and app group settings are accepted so that Apple-platform code compiles, and have no
// effect here.

import Foundation

/// How a `ModelContainer` stores its models.
///
/// ```swift
/// let onDisk = ModelConfiguration(url: URL(fileURLWithPath: "/var/lib/app/trips.store"))
/// let inMemory = ModelConfiguration(isStoredInMemoryOnly: true)
/// ```
public struct ModelConfiguration: Hashable, Identifiable, Sendable {
    /// App group containers (Apple's systems); accepted, no effect here.
    public struct GroupContainer: Hashable, Sendable {
        let value: String
        /// The app's default group container.
        public static let automatic = GroupContainer(value: "automatic")
        /// No group container.
        public static let none = GroupContainer(value: "none")
        /// The group container `id`.
        public static func identifier(_ id: String) -> GroupContainer { GroupContainer(value: id) }
    }

    /// CloudKit databases (Apple's systems); accepted, no effect here.
    public struct CloudKitDatabase: Hashable, Sendable {
        let value: String
        /// The app's default CloudKit container.
        public static let automatic = CloudKitDatabase(value: "automatic")
        /// No CloudKit.
        public static let none = CloudKitDatabase(value: "none")
        /// The private database of CloudKit container `container`.
        public static func `private`(_ container: String) -> CloudKitDatabase { CloudKitDatabase(value: container) }
    }

    /// The configuration's name ("default" unless given).
    public let name: String
    /// The schema this configuration stores; nil: the container's.
    public let schema: Schema?
    /// The store file (`/dev/null` for an in-memory store, as in SwiftData).
    public let url: URL
    /// Whether the store lives in memory only (and is gone with its container).
    public let isStoredInMemoryOnly: Bool
    /// Whether contexts may save; a save on a read-only configuration throws.
    public let allowsSave: Bool
    /// Accepted for source compatibility; no effect.
    public let groupContainer: GroupContainer
    /// Accepted for source compatibility; no effect.
    public let cloudKitDatabase: CloudKitDatabase

    public var id: URL { url }

    /// A configuration in memory or in the default file (`<name>.store` in the application
    /// support directory).
    public init(
        _ name: String? = nil, schema: Schema? = nil, isStoredInMemoryOnly: Bool = false, allowsSave: Bool = true,
        groupContainer: GroupContainer = .automatic, cloudKitDatabase: CloudKitDatabase = .automatic
    ) {
        self.name = name ?? "default"
        self.schema = schema
        self.isStoredInMemoryOnly = isStoredInMemoryOnly
        self.allowsSave = allowsSave
        self.groupContainer = groupContainer
        self.cloudKitDatabase = cloudKitDatabase
        self.url = isStoredInMemoryOnly ? URL(fileURLWithPath: "/dev/null") : Self.defaultURL(self.name)
    }

    /// A configuration stored in the file at `url`.
    public init(
        _ name: String? = nil, schema: Schema? = nil, url: URL, allowsSave: Bool = true,
        cloudKitDatabase: CloudKitDatabase = .automatic
    ) {
        self.name = name ?? "default"
        self.schema = schema
        self.url = url
        self.isStoredInMemoryOnly = false
        self.allowsSave = allowsSave
        self.groupContainer = .automatic
        self.cloudKitDatabase = cloudKitDatabase
    }

    /// A configuration for the given model types.
    @_disfavoredOverload
    public init(for forTypes: any PersistentModel.Type..., isStoredInMemoryOnly: Bool = false) {
        self.init(schema: Schema(forTypes), isStoredInMemoryOnly: isStoredInMemoryOnly)
    }

    /// `<application support>/<name>.store`, as SwiftData names its default store.
    static func defaultURL(_ name: String) -> URL {
        let base =
            FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? URL(fileURLWithPath: NSTemporaryDirectory())
        return base.appendingPathComponent("\(name).store")
    }

    public static func == (lhs: ModelConfiguration, rhs: ModelConfiguration) -> Bool {
        lhs.name == rhs.name && lhs.url == rhs.url && lhs.isStoredInMemoryOnly == rhs.isStoredInMemoryOnly
            && lhs.allowsSave == rhs.allowsSave
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(url)
    }
}
