// swift-tools-version: 6.0
import CompilerPluginSupport
import PackageDescription

// Sync through PostgreSQL (docs/SYNC.md) is the only part that needs postgres-nio, and with it
// swift-nio-ssl and swift-crypto: two copies of BoringSSL, more than half of a clean debug build.
// `CADMIUM_WITHOUT_SYNC=1` leaves the sync products, targets and tests out of the graph, for work
// on the layers below it (docs/TESTING.md). CI and `make test` never set it: they build everything.
let withSync = Context.environment["CADMIUM_WITHOUT_SYNC"] == nil

let syncProducts: [Product] =
    withSync
    ? [
        // The only product that links postgres-nio.
        .library(name: "CadmiumSync", targets: ["CadmiumSync"]),
        .executable(name: "cdsync", targets: ["cdsync"]),
    ] : []

let syncDependencies: [Package.Dependency] =
    withSync
    ? [
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ] : []

let syncTargets: [Target] =
    withSync
    ? [
        // Sync through PostgreSQL (docs/SYNC.md): the engine works on CdObjects' ObjectStore; a
        // thin front (`CdSync`) binds it to the `Cd` stack. Sits on top of Cadmium.
        .target(
            name: "CadmiumSync",
            dependencies: [
                "Cadmium", "CdObjects", "CdStore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // `cdsync`: a replica process (the convergence campaign's) and `cdsync status` (a store's
        // sync state).
        .executableTarget(
            name: "cdsync",
            dependencies: [
                "CadmiumSync", "CdObjects", "CdStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The sync tests' model, replicas and campaign workload, shared by the tests and the
        // campaign's replica processes (`cadmium-sync-replica`).
        .target(
            name: "CdSyncTesting",
            dependencies: ["CadmiumSync", "CdObjects", "CdStore", "CdStoreTesting"]
        ),
        .executableTarget(
            name: "cadmium-sync-replica",
            dependencies: ["CdSyncTesting", "CadmiumSync", "Cadmium", "CdObjects", "CdStore"]
        ),
        .testTarget(
            name: "CadmiumSyncTests",
            dependencies: [
                "CadmiumSync", "CdSyncTesting", "Cadmium", "CdObjects", "CdStore", "CdStoreTesting", "CdFaultSupport",
                "cdsync",
                "cadmium-sync-replica",
            ]
        ),
    ] : []

let package = Package(
    name: "Cadmium",
    products: [
        .library(name: "CdStore", targets: ["CdStore"]),
        .library(name: "CdObjects", targets: ["CdObjects"]),
        .library(name: "Cadmium", targets: ["Cadmium"]),
        // SwiftData's API on Cadmium's store, for platforms without Apple's framework
        // (docs/SWIFTDATA.md): an app writes `import SwiftData`.
        .library(name: "SwiftData", targets: ["SwiftData"]),
        .executable(name: "cdstore-verify", targets: ["cdstore-verify"]),
        .executable(name: "cdstore-migrate", targets: ["cdstore-migrate"]),
        .library(name: "CdCoreDataImport", targets: ["CdCoreDataImport"]),
        // SQLite's C API as a product, for the benchmark package's raw-SQLite peer: target names
        // are unique across a package graph, so it cannot declare a CSQLite of its own.
        .library(name: "CSQLite", targets: ["CSQLite"]),
        .executable(name: "cdstore-import-coredata", targets: ["cdstore-import-coredata"]),
        .executable(name: "cdstore", targets: ["cdstore-tool"]),
    ] + syncProducts,
    dependencies: [
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1"),
    ] + syncDependencies,
    targets: [
        // zlib, for the tests only: they check that zlib inflates every page image the engine
        // writes, so that any zlib reads a store's pages (docs/FORMAT.md).
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // libdeflate writes and reads the page images: the same raw DEFLATE streams (RFC 1951) that
        // zlib reads and writes, in whole-buffer calls that inflate about 2.4 times and deflate
        // about 2.2 times as fast as zlib's streams on 8 KiB pages (docs/FORMAT.md, compression).
        .systemLibrary(
            name: "CDeflate",
            pkgConfig: "libdeflate",
            providers: [.apt(["libdeflate-dev"])]
        ),
        // SQLite, for the Core Data importer (it reads Core Data's SQLite stores) and the
        // benchmarks; never linked into CdStore, CdObjects or Cadmium.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(
            name: "CdStore",
            dependencies: [
                "CDeflate",
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .target(
            name: "CdObjects",
            dependencies: ["CdStore"]
        ),
        .target(
            name: "Cadmium",
            dependencies: ["CdObjects", "CdStore"]
        ),
        // How SwiftData's macros (`@Model`, `@Attribute`, `@Relationship`, `@Transient`,
        // `#Unique`, `#Index`, `@ModelActor`) expand: an ordinary target, so that the expansion
        // tests link it and not the `.macro` target. SwiftPM builds a test target that depends on
        // a `.macro` target for the host, and on Linux every test target goes into one test
        // bundle: the whole bundle and everything it links (BoringSSL twice, swift-nio, our own
        // modules) were compiled a second time, as host tools (docs/TESTING.md, CI).
        .target(
            name: "SwiftDataMacroImplementations",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
            ]
        ),
        // The compiler plug-in that the SwiftData module declares its macros in.
        .macro(
            name: "SwiftDataMacros",
            dependencies: [
                "SwiftDataMacroImplementations",
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
            ]
        ),
        // SwiftData's public API built on CdObjects' store; it imports Cadmium internally (for the
        // `#Predicate` translation and value conversions), never its global `Cd` stack.
        .target(
            name: "SwiftData",
            dependencies: ["CdObjects", "CdStore", "Cadmium", "SwiftDataMacros"]
        ),
        // The engine's test doubles, which the engine does not ship (as SQLite keeps its crash VFS
        // in test files): the fault-injecting file system with simulated crashes and power loss,
        // its operation log, and the seeded generator of randomized tests.
        .target(
            name: "CdStoreTesting",
            dependencies: ["CdStore"]
        ),
        // Test support for the crash and fuzz campaigns (docs/TESTING.md): the crash workloads and
        // the fuzz harnesses, shared by their executables and the tests.
        .target(
            name: "CdFaultSupport",
            dependencies: ["CdStore", "CdStoreTesting", "CdObjects", "Cadmium"]
        ),
        .executableTarget(
            name: "cadmium-crash-child",
            dependencies: ["CdStore", "CdFaultSupport"]
        ),
        // One executable per fuzz target: libFuzzer under `make fuzz`, else a mutation loop.
        .executableTarget(name: "fuzz-store-open", dependencies: ["CdFaultSupport"]),
        .executableTarget(name: "fuzz-wal-recovery", dependencies: ["CdFaultSupport"]),
        .executableTarget(name: "fuzz-verifier", dependencies: ["CdFaultSupport"]),
        .executableTarget(name: "fuzz-predicate", dependencies: ["CdFaultSupport"]),
        .executableTarget(name: "fuzz-model-reader", dependencies: ["CdFaultSupport"]),
        .executableTarget(
            name: "cadmium-demo",
            dependencies: ["CdStore"]
        ),
        .executableTarget(
            name: "cadmium-company-demo",
            dependencies: ["Cadmium"]
        ),
        // Code in Cadmium's call forms (its README, example app and tests), run by
        // CadmiumCompatibilityTests in a process of its own: a signature that drifts from
        // Cadmium's stops it compiling.
        .executableTarget(
            name: "cadmium-compatibility-app",
            dependencies: ["Cadmium"]
        ),
        // The command-line tools' shared terminal output (progress line); shipped in no library.
        .target(name: "CdToolSupport", dependencies: ["CdStore"]),
        // The bodies of the store commands (verify, migrate) and how every tool starts and exits,
        // shared by `cdstore` and the single-purpose `cdstore-verify` and `cdstore-migrate`.
        .target(
            name: "CdStoreCommands",
            dependencies: [
                "CdStore",
                "CdObjects",
                "CdToolSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "cdstore-verify",
            dependencies: ["CdStoreCommands", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .executableTarget(
            name: "cdstore-migrate",
            dependencies: ["CdStoreCommands", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // `cdstore`: one command to look into, query, export, import, compact, verify, migrate and
        // import Core Data stores
        // (docs/CDSTORE.md). The product, and so the binary, is `cdstore`.
        .executableTarget(
            name: "cdstore-tool",
            dependencies: [
                "CdStore",
                "CdObjects",
                "CdStoreCommands",
                "CdImportCoreDataCommand",
                "CdToolSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Imports Apple Core Data SQLite stores into Cadmium stores (docs/COREDATA-IMPORT.md).
        .target(
            name: "CdCoreDataImport",
            dependencies: ["CdObjects", "CdStore", "CSQLite"]
        ),
        // The Core Data import command's options and body, shared by `cdstore-import-coredata` and
        // `cdstore import-coredata` (kept out of CdStoreCommands, so that only these link SQLite).
        .target(
            name: "CdImportCoreDataCommand",
            dependencies: [
                "CdCoreDataImport",
                "CdToolSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "cdstore-import-coredata",
            dependencies: [
                "CdImportCoreDataCommand",
                "CdStoreCommands",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "CdCoreDataImportTests",
            dependencies: [
                "CdCoreDataImport", "CdObjects", "CdStore", "CSQLite", "CdFaultSupport", "cdstore-import-coredata",
                "cdstore-tool",
            ]
        ),
        .testTarget(
            name: "CdStoreTests",
            dependencies: ["CdStore", "CdStoreTesting", "CdFaultSupport", "cadmium-crash-child", "CZlib"]
        ),
        .testTarget(name: "CdObjectsTests", dependencies: ["CdObjects", "CdStoreTesting", "CdFaultSupport"]),
        .testTarget(
            name: "CadmiumTests",
            dependencies: [
                "Cadmium", "CdObjects", "CdStore", "CdStoreTesting", "CdFaultSupport", "cadmium-crash-child",
                "CdCoreDataImport", "SwiftData",
            ]
        ),
        .testTarget(name: "SwiftDataTests", dependencies: ["SwiftData", "CdObjects", "CdStore"]),
        .testTarget(
            name: "SwiftDataMacrosTests",
            dependencies: [
                "SwiftDataMacroImplementations",
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
            ]
        ),
        .testTarget(
            name: "CdStoreToolTests",
            dependencies: [
                "CdObjects", "CdStore", "CdFaultSupport", "cdstore-tool", "cdstore-verify", "cdstore-migrate",
                "cadmium-company-demo", "CdStoreCommands",
            ]
        ),
        .testTarget(
            name: "CadmiumCompatibilityTests",
            dependencies: ["CdFaultSupport", "cadmium-compatibility-app"]
        ),
    ] + syncTargets,
    swiftLanguageModes: [.v6]
)
