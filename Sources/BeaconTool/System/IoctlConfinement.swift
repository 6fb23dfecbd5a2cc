// SPDX-License-Identifier: Apache-2.0
import HCISocket

/// The outcome of confining ioctl(2) with HCISocket's `IoctlFilter`: installed (and how far it
/// reaches) or not installed (and why). A failure is never fatal: the session runs unconfined.
enum IoctlConfinement: Equatable {
    case installed(IoctlFilter.Scope)
    case failed(IoctlFilterError)

    /// The real installer, which `ServiceContext.system` hooks in.
    static func installNative() -> IoctlConfinement {
        switch IoctlFilter.installNative() {
        case let .success(scope): return .installed(scope)
        case let .failure(error): return .failed(error)
        }
    }
}

extension ToolContext {
    /// Confines ioctl(2) for the rest of the process to the requests beacon-tx makes (HCI device
    /// ioctls, terminal queries): CAP_NET_ADMIN, which HCIDEVUP and HCIDEVRESET need, then no longer
    /// reaches network interfaces. `start` (live) and `scan` call it before their first HCI socket.
    /// Says nothing when it works (with `verbose`, one note); a failure is one warning naming the
    /// errno, and the command goes on.
    func confineIoctls(verbose: Bool) {
        switch service.confineIoctls() {
        case nil:
            return
        case let .installed(scope)?:
            guard verbose else { return }
            let reach = scope == .allThreads ? "every thread" : "the process's only thread"
            note("seccomp: ioctl(2) confined to \(IoctlFilter.requestNames) "
                 + "(any other request fails with EPERM; \(reach))")
        case let .failed(error)?:
            warn("cannot confine ioctl(2) with seccomp (\(error)); CAP_NET_ADMIN still reaches the network interfaces")
        }
    }
}
