import BeaconKit

/// Shared live-path steps of start, stop, devices and scan: pick the device, bring it up, reset it,
/// open the raw channel and probe the controller.
struct DeviceSession {
    let host: HCIHost
    let info: HCIDeviceInfo
    let channel: HCIChannel
    let runner: HCICommandRunner
    let caps: ControllerCapabilities

    var name: String { info.name }

    struct Options {
        var device: UInt16?
        var reset = false
        var timeoutMilliseconds = Settings.defaultTimeoutMilliseconds
        var verbose = false
        var watchSignals = false
        /// Default device: the first controller with LE.
        var requireLE = true
    }

    static func open(_ o: Options, _ ctx: ToolContext) throws(CLIError) -> DeviceSession {
        let host: HCIHost
        do { host = try ctx.makeHost() } catch { throw CLIError(error) }
        let devices: [HCIDeviceInfo]
        do { devices = try host.devices().sorted { $0.id < $1.id } } catch { throw CLIError(error) }
        let names = devices.map(\.name)
        if let id = o.device {
            guard let info = devices.first(where: { $0.id == id }) else {
                throw CLIError(TransportError.noSuchDevice(HCIDeviceInfo.name(of: id), available: names))
            }
            return try open(info, host, o, ctx)
        }
        guard !devices.isEmpty else { throw CLIError(TransportError.noSuchDevice("(any)", available: [])) }
        var firstError: CLIError?
        for info in devices {
            do {
                let session = try open(info, host, o, ctx)
                if !o.requireLE || session.caps.supportsLE { return session }
                ctx.note("\(info.name) has no LE; trying the next controller")
            } catch {
                if error.code == .noPermission { throw error }
                firstError = firstError ?? error
            }
        }
        throw firstError ?? CLIError(.unavailable, "no controller with Bluetooth LE found (\(names.joined(separator: ", ")))")
    }

    static func open(_ info: HCIDeviceInfo, _ host: HCIHost, _ o: Options, _ ctx: ToolContext) throws(CLIError) -> DeviceSession {
        do {
            if !info.isUp {
                ctx.note("\(info.name) is down; bringing it up (HCIDEVUP)")
                try host.up(deviceID: info.id)
            }
            if o.reset {
                ctx.note("resetting \(info.name) (HCIDEVRESET)")
                try host.reset(deviceID: info.id)
            }
        } catch { throw CLIError(error) }
        let channel: HCIChannel
        do { channel = try host.open(deviceID: info.id, watchSignals: o.watchSignals) } catch { throw CLIError(error) }
        let runner = HCICommandRunner(channel: channel, timeoutMilliseconds: o.timeoutMilliseconds, now: ctx.monotonicMilliseconds)
        if o.verbose { runner.trace = { ctx.log(.debug, $0) } }
        let caps: ControllerCapabilities
        do { caps = try Advertiser.probe(runner) } catch { throw CLIError(error) }
        var up = info
        up.isUp = true
        return DeviceSession(host: host, info: up, channel: channel, runner: runner, caps: caps)
    }

    /// Ends a long wait with an error (exit 69) when the controller reports a Hardware Error or the
    /// kernel reports it down or gone, so a supervisor such as systemd starts beacon-tx again.
    func checkHealth(_ packet: [UInt8], while activity: String) throws(CLIError) {
        guard let e = try? HCIEvent(packet: packet), let failure = ControllerFailure(e, deviceID: info.id) else { return }
        throw CLIError(failure, device: name, while: activity)
    }
}
