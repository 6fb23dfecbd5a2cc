public enum BeaconTool {}
