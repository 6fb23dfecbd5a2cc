// swift-tools-version:6.0
// SPDX-License-Identifier: Apache-2.0
// libFuzzer harnesses for beacon-tx (see README.md here). A separate package: `swift build` and
// `swift test` of the main package never see it. Built by `make fuzz` with the fuzzer and address
// sanitizers on every target, including the beacon-tx code under test.
import PackageDescription

/// Each harness is an executable whose main.swift calls libFuzzer's LLVMFuzzerRunDriver.
let harnesses = ["fuzz-hci-packets", "fuzz-advertising-reports", "fuzz-ad-ibeacon", "fuzz-json-config",
                 "fuzz-decode", "fuzz-argv", "fuzz-advertiser", "fuzz-capture", "fuzz-session", "fuzz-selftest"]

let package = Package(
    name: "beacon-tx-fuzz",
    dependencies: [.package(name: "beacon-tx", path: "..")],
    targets: [
        .target(name: "CFuzzerDriver"),
        .target(name: "FuzzSupport", dependencies: [
            "CFuzzerDriver",
            .product(name: "BeaconKit", package: "beacon-tx"),
            .product(name: "BeaconTool", package: "beacon-tx"),
        ]),
    ] + harnesses.map { name in
        .executableTarget(name: name, dependencies: [
            "FuzzSupport",
            .product(name: "BeaconKit", package: "beacon-tx"),
            .product(name: "BeaconTool", package: "beacon-tx"),
            .product(name: "BeaconTestSupport", package: "beacon-tx"),
        ])
    },
    swiftLanguageModes: [.v6]
)
