// SPDX-License-Identifier: Apache-2.0
/// sysexits(3) codes beacon-tx exits with.
public enum ExitCode: Int32, Sendable {
    case success = 0
    /// `start --check`: the plan differs from the golden file (the differences are printed).
    case differs = 1
    /// `status` only: nothing is on air (LSB "program is not running", as `systemctl is-active`).
    case nothingOnAir = 3
    /// EX_USAGE: a bad flag or value on the command line.
    case usage = 64
    /// EX_DATAERR: bad data in a config file or a hex argument.
    case dataError = 65
    /// EX_NOINPUT: a file that does not exist or cannot be read.
    case noInput = 66
    /// EX_UNAVAILABLE: no Bluetooth, no such device, controller refused or not answering.
    case unavailable = 69
    /// EX_CONFIG: the configuration asks for what this controller cannot do (a restart cannot help,
    /// so the systemd units do not restart on it: RestartPreventExitStatus).
    case config = 78
    /// EX_SOFTWARE: an internal error.
    case software = 70
    /// EX_CANTCREAT: an output file cannot be created.
    case cantCreate = 73
    /// EX_IOERR: writing stdout or an output file failed (`> /dev/full`, a closed stdout).
    case ioError = 74
    /// EX_TEMPFAIL: the device is owned by another running beacon-tx session (try again once it stopped).
    case tempFail = 75
    /// EX_NOPERM: missing CAP_NET_RAW / CAP_NET_ADMIN.
    case noPermission = 77
}

/// One failure the user sees as one line on stderr, with its exit code.
public struct CLIError: Error, Equatable, Sendable, CustomStringConvertible {
    public let code: ExitCode
    public let message: String

    public init(_ code: ExitCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    static func usage(_ m: String) -> CLIError { CLIError(.usage, m) }
    static func data(_ m: String) -> CLIError { CLIError(.dataError, m) }
}

import BeaconKit
