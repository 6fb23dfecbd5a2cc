// swift-tools-version:6.0
// SPDX-License-Identifier: Apache-2.0
// The scan-session benchmark: its own package so the root package's `swift build` / `swift test`
// (and CI's `make test`) never build or run it. Run it with scripts/bench-scan-session.
import PackageDescription

let package = Package(
    name: "ScanSessionBench",
    dependencies: [
        // The repository itself, by local path; only its pure BeaconKit library is used.
        .package(name: "beacon-tx", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "scan-session-bench",
            dependencies: [.product(name: "BeaconKit", package: "beacon-tx")],
            path: "Sources/ScanSessionBench"
        ),
    ],
    swiftLanguageModes: [.v6]
)
