// The beacon regions of beacon-tx's effective config (beacon-tx dump-config --format kotlin),
// for the Android Beacon Library (org.altbeacon:android-beacon-library 2.19 or later). The library
// reads only AltBeacon frames until it is given a layout: startBeaconTx adds the ones these beacons
// need, then monitors every region (didEnterRegion/didExitRegion) and ranges it (about once a second).
import org.altbeacon.beacon.BeaconManager
import org.altbeacon.beacon.BeaconParser
import org.altbeacon.beacon.Identifier
import org.altbeacon.beacon.Region

// Offsets into the manufacturer data from Apple's company id (4C 00): 02 15, UUID, major, minor, measured power.
const val BEACON_TX_IBEACON_LAYOUT = "m:2-3=0215,i:4-19,i:20-21,i:22-23,p:24-24"

fun beaconTxRegions(): List<Region> {
    val regions = mutableListOf<Region>()

    // museum-entrance: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 1, measuredPower -59 dBm
    regions.add(Region("museum-entrance", Identifier.parse("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"), Identifier.fromInt(1), Identifier.fromInt(1)))

    // museum-hall: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 2, measuredPower -59 dBm
    regions.add(Region("museum-hall", Identifier.parse("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"), Identifier.fromInt(1), Identifier.fromInt(2)))

    // museum-shop: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 3, measuredPower -62 dBm
    regions.add(Region("museum-shop", Identifier.parse("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"), Identifier.fromInt(1), Identifier.fromInt(3)))
    return regions
}

fun startBeaconTx(beaconManager: BeaconManager) {
    val parser = BeaconParser().setBeaconLayout(BEACON_TX_IBEACON_LAYOUT)
    parser.setHardwareAssistManufacturerCodes(intArrayOf(0x004C))  // Apple's company id, for the hardware scan filter
    beaconManager.beaconParsers.add(parser)
    for (region in beaconTxRegions()) {
        beaconManager.startMonitoring(region)
        beaconManager.startRangingBeacons(region)
    }
}
