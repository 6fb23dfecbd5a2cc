// swift-tools-version:6.0
// SPDX-License-Identifier: Apache-2.0
import PackageDescription

let package = Package(
    name: "beacon-tx",
    products: [
        .executable(name: "beacon-tx", targets: ["beacon-tx"]),
        .library(name: "BeaconKit", targets: ["BeaconKit"]),
        .library(name: "HCISocket", targets: ["HCISocket"]),
        // For the libFuzzer harnesses in Fuzz/ (a separate package that depends on this one).
        .library(name: "BeaconTool", targets: ["BeaconTool"]),
        // The fakes (scripted and behavioural controllers), for the tests and the session harness in Fuzz/.
        .library(name: "BeaconTestSupport", targets: ["BeaconTestSupport"]),
    ],
    targets: [
        // Pure core: bytes, iBeacon, HCI vocabulary, encoders, decoders, plans. Swift stdlib only.
        .target(name: "BeaconKit"),
        // BlueZ headers (Debian: libbluetooth-dev) and a tiny C shim for ioctl numbers and macros.
        // Headers only: nothing links libbluetooth, so the binary needs no BlueZ library at run time.
        .systemLibrary(name: "CBlueZ"),
        // The one system-call layer: retry on EINTR, errno capture, swappable calls and clocks.
        .target(name: "SystemCalls"),
        // The one thin transport over a raw HCI socket.
        .target(name: "HCISocket", dependencies: ["BeaconKit", "CBlueZ", "SystemCalls"]),
        // Argument parsing, config files, commands and output formats.
        .target(name: "BeaconTool", dependencies: ["BeaconKit", "HCISocket", "SystemCalls", "CBlueZ"]),
        .executableTarget(name: "beacon-tx", dependencies: ["BeaconTool"]),
        // Scripted fake controller and golden-file helpers for the tests.
        .target(name: "BeaconTestSupport", dependencies: ["BeaconKit"], path: "Tests/BeaconTestSupport"),
        .testTarget(name: "BeaconKitTests", dependencies: ["BeaconKit", "BeaconTestSupport"]),
        .testTarget(name: "BeaconToolTests", dependencies: ["BeaconTool", "BeaconKit", "BeaconTestSupport"], exclude: ["Snapshots"]),
        .testTarget(name: "HCISocketTests", dependencies: ["HCISocket", "BeaconKit", "SystemCalls"]),
    ],
    swiftLanguageModes: [.v6]
)
