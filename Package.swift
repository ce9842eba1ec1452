// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Cadmium",
    products: [
        .library(name: "CdStore", targets: ["CdStore"]),
        .library(name: "CdObjects", targets: ["CdObjects"]),
        .library(name: "Cadmium", targets: ["Cadmium"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
    ],
    targets: [
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .target(
            name: "CdStore",
            dependencies: [
                "CZlib",
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
        .testTarget(name: "CdStoreTests", dependencies: ["CdStore"]),
        .testTarget(name: "CdObjectsTests", dependencies: ["CdObjects"]),
        .testTarget(name: "CadmiumTests", dependencies: ["Cadmium", "CdObjects"]),
    ],
    swiftLanguageModes: [.v6]
)
