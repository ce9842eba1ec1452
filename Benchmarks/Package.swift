// swift-tools-version: 6.0
// Cadmium's benchmark suite: our engine, object store and `Cd` API side by side with SQLite's C
// API and GRDB.swift, on the same data in the same run. A package of its own so that GRDB never
// enters the main package's build or `make test`. Run it through `make bench` / `make bench-quick`.
import PackageDescription

// The SwiftData column needs Cadmium's SwiftData module, whose macros need swift-syntax built in
// release, which alone takes longer on a 2-core machine than the rest of the harness: it is built
// only when CADMIUM_BENCH_SWIFTDATA=1 (`make bench` sets it; `make bench-quick`, which CI runs,
// does not). The Makefile builds with `--manifest-cache none`, so a change of the variable is
// always seen.
let swiftDataColumn = Context.environment["CADMIUM_BENCH_SWIFTDATA"] == "1"

let package = Package(
    name: "CadmiumBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Cadmium", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .executableTarget(
            name: "cadmium-bench",
            dependencies: [
                // SQLite's C API: the main package's CSQLite (one CSQLite per package graph).
                .product(name: "CSQLite", package: "Cadmium"),
                .product(name: "CdStore", package: "Cadmium"),
                .product(name: "CdObjects", package: "Cadmium"),
                .product(name: "Cadmium", package: "Cadmium"),
                .product(name: "CdCoreDataImport", package: "Cadmium"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ] + (swiftDataColumn ? [.product(name: "SwiftData", package: "Cadmium")] : []),
            swiftSettings: swiftDataColumn ? [.define("BENCH_SWIFTDATA")] : []
        ),
    ],
    swiftLanguageModes: [.v6]
)
