import BeaconTool
