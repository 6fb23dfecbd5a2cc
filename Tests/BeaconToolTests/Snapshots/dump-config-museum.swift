// The iBeacon regions of beacon-tx's effective config (beacon-tx dump-config --format swift).
// Monitor them with CLLocationManager.startMonitoring(for:) (at most 20 regions per app), and
// range a region's beacons with startRangingBeacons(satisfying: region.beaconIdentityConstraint).
import CoreLocation

func beaconTxRegions() -> [CLBeaconRegion] {
    var regions: [CLBeaconRegion] = []

    // museum-entrance: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 1, measuredPower -59 dBm
    let constraint1 = CLBeaconIdentityConstraint(uuid: UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!, major: 1, minor: 1)
    let region1 = CLBeaconRegion(beaconIdentityConstraint: constraint1, identifier: "museum-entrance")
    // Before iOS 13: CLBeaconRegion(proximityUUID: UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!, major: 1, minor: 1, identifier: "museum-entrance")
    region1.notifyOnEntry = true
    region1.notifyOnExit = true
    region1.notifyEntryStateOnDisplay = true
    regions.append(region1)

    // museum-hall: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 2, measuredPower -59 dBm
    let constraint2 = CLBeaconIdentityConstraint(uuid: UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!, major: 1, minor: 2)
    let region2 = CLBeaconRegion(beaconIdentityConstraint: constraint2, identifier: "museum-hall")
    // Before iOS 13: CLBeaconRegion(proximityUUID: UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!, major: 1, minor: 2, identifier: "museum-hall")
    region2.notifyOnEntry = true
    region2.notifyOnExit = true
    region2.notifyEntryStateOnDisplay = true
    regions.append(region2)

    // museum-shop: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 3, measuredPower -62 dBm
    let constraint3 = CLBeaconIdentityConstraint(uuid: UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!, major: 1, minor: 3)
    let region3 = CLBeaconRegion(beaconIdentityConstraint: constraint3, identifier: "museum-shop")
    // Before iOS 13: CLBeaconRegion(proximityUUID: UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!, major: 1, minor: 3, identifier: "museum-shop")
    region3.notifyOnEntry = true
    region3.notifyOnExit = true
    region3.notifyEntryStateOnDisplay = true
    regions.append(region3)
    return regions
}
