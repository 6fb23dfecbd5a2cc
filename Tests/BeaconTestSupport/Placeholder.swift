import BeaconKit
