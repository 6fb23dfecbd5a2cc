// swift-tools-version:6.0
// SPDX-License-Identifier: Apache-2.0
// The scan-decode benchmark: its own package so the root package's `swift build` / `swift test`
// (and CI's `make test`) never build or run it. Run it with scripts/bench-scan.
import PackageDescription

let package = Package(
    name: "ScanDecodeBench",
    dependencies: [
        // The repository itself, by local path; only its pure BeaconKit library is used.
        .package(name: "beacon-tx", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "scan-decode-bench",
            dependencies: [.product(name: "BeaconKit", package: "beacon-tx")],
            path: "Sources/ScanDecodeBench"
        ),
    ],
    swiftLanguageModes: [.v6]
)
