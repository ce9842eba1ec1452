// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Cadmium",
    products: [
        .library(name: "CdStore", targets: ["CdStore"]),
        .library(name: "CdObjects", targets: ["CdObjects"]),
        .library(name: "Cadmium", targets: ["Cadmium"]),
        .executable(name: "cdstore-verify", targets: ["cdstore-verify"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
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
        .executableTarget(
            name: "cadmium-demo",
            dependencies: ["CdStore"]
        ),
        .executableTarget(
            name: "cdstore-verify",
            dependencies: [
                "CdStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "CdStoreTests", dependencies: ["CdStore"]),
        .testTarget(name: "CdObjectsTests", dependencies: ["CdObjects"]),
        .testTarget(name: "CadmiumTests", dependencies: ["Cadmium", "CdObjects"]),
    ],
    swiftLanguageModes: [.v6]
)
