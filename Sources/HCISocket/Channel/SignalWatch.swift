// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import CBlueZ
import Glibc
import Synchronization
import SystemCalls

/// SIGINT, SIGTERM and SIGHUP as a file descriptor (signalfd), so `receive` waits for them in the same poll as the socket.
///
/// While at least one watch exists, the signals are blocked in the calling thread's mask (threads
/// started later inherit it); they stay pending until a `receive` reads them. The last watch to close
/// restores the mask: a signal that arrived after the last `receive` is then delivered with its normal
/// disposition. Signals the process ignores (SIG_IGN) are left alone and never reported.
final class SignalWatch {
    /// SIGINT (2), SIGTERM (15), SIGHUP (1: reload, or stop when there is nothing to reload).
    static let watched: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    private(set) var descriptor: Int32
    private let system: SystemCalls
    /// False for a test watch over a stand-in descriptor: the process mask is not touched.
    private let ownsMask: Bool

    init(device: String) throws(TransportError) {
        try Self.retainMask()
        var set = sigset_t()
        sigemptyset(&set)
        for signal in Self.watched { sigaddset(&set, signal) }
        do {
            descriptor = try systemCall { signalfd(-1, &set, Int32(SFD_CLOEXEC) | Int32(SFD_NONBLOCK)) }
        } catch {
            Self.releaseMask()
            throw transportError(error, call: "signalfd", device: device, available: { [] })
        }
        system = .live
        ownsMask = true
    }

    /// A watch reading `descriptor` through `system`, leaving the signal mask alone (unit tests).
    init(descriptor: Int32, system: SystemCalls) {
        self.descriptor = descriptor
        self.system = system
        ownsMask = false
    }

    /// The next pending watched signal, or nil when none is pending.
    func take() -> Int32? {
        var info = signalfd_siginfo()
        let size = MemoryLayout<signalfd_siginfo>.size
        let n = try? systemCall {
            withUnsafeMutableBytes(of: &info) { system.read(descriptor, UnsafeMutableRawBufferPointer(rebasing: $0[..<size])) }
        }
        return n == size ? Int32(bitPattern: info.ssi_signo) : nil
    }

    func close() {
        guard descriptor >= 0 else { return }
        system.closeDescriptor(descriptor)
        descriptor = -1
        if ownsMask { Self.releaseMask() }
    }

    deinit { close() }

    // MARK: process-wide mask bookkeeping

    private struct MaskState: ~Copyable {
        var watches = 0
        /// The signals this target blocked (not those that were blocked or ignored before).
        var blockedByUs: [Int32] = []
    }

    private static let mask = Mutex(MaskState())

    private static func retainMask() throws(TransportError) {
        let failure: Int32? = mask.withLock { state in
            if state.watches == 0 {
                var current = sigset_t()
                sigemptyset(&current)
                // pthread_sigmask returns the error number; it does not set errno.
                let read = pthread_sigmask(SIG_BLOCK, nil, &current)
                if read != 0 { return read }
                var toBlock = sigset_t()
                sigemptyset(&toBlock)
                var blocked: [Int32] = []
                for signal in watched where sigismember(&current, signal) == 0 && beacon_tx_signal_is_ignored(signal) == 0 {
                    sigaddset(&toBlock, signal)
                    blocked.append(signal)
                }
                let result = pthread_sigmask(SIG_BLOCK, &toBlock, nil)
                if result != 0 { return result }
                state.blockedByUs = blocked
            }
            state.watches += 1
            return nil
        }
        if let failure {
            throw .system(call: "pthread_sigmask", device: "process", errno: failure, message: Errno(failure).description)
        }
    }

    private static func releaseMask() {
        mask.withLock { state in
            state.watches -= 1
            guard state.watches == 0 else { return }
            var toUnblock = sigset_t()
            sigemptyset(&toUnblock)
            for signal in state.blockedByUs { sigaddset(&toUnblock, signal) }
            _ = pthread_sigmask(SIG_UNBLOCK, &toUnblock, nil)
            state.blockedByUs = []
        }
    }
}
