// SPDX-License-Identifier: Apache-2.0
import CBlueZ
import Glibc

/// The seccomp filter beacon-tx installs on its own process: ioctl(2) only with the requests
/// beacon-tx makes (the HCI device ioctls of `RawHCIHost` and the terminal query), EPERM for every
/// other request; every other system call passes untouched.
///
/// CAP_NET_ADMIN, which HCIDEVUP and HCIDEVRESET need, also opens the network-interface ioctls
/// (SIOCSIFFLAGS, SIOCSIFMTU, SIOCSIFNAME, …) on any socket, AF_UNIX included, and neither
/// `RestrictAddressFamilies=` nor `SystemCallFilter=@system-service` can tell them apart from the
/// HCI ones: both are `ioctl`. This filter can, by the request number.
///
/// The program, for the native architecture (x86_64 shown; aarch64 has no x32 line):
///
/// ```
///  0  ld  [arch]                          seccomp_data.arch
///  1  jeq AUDIT_ARCH_X86_64, 0, deny      another architecture's table: EPERM for all of it
///  2  ld  [nr]
///  3  jge __X32_SYSCALL_BIT, deny, 0      x32 calls (same arch, another table): EPERM
///  4  jeq __NR_ioctl, 0, allow            not ioctl: allowed
///  5  ld  [args[1] high half]
///  6  jeq 0, 0, deny                      a request wider than 32 bits: EPERM
///  7  ld  [args[1] low half]
///  8… jeq REQUEST, allow, 0               one per allowed request
///     deny:  ret ERRNO | EPERM
///     allow: ret ALLOW
/// ```
///
/// Both release architectures are little-endian, so the low half of `args[1]` is at its offset and
/// the high half 4 bytes on. The kernel reads the request as 32 bits (`unsigned int cmd`); the high
/// half is checked so that the filter passes exactly the numbers it lists.
public struct IoctlFilter: Equatable, Sendable {
    /// One classic-BPF instruction, `struct sock_filter`: the opcode, the jumps when the test is true
    /// and false (counted from the next instruction), and the constant.
    public struct Instruction: Equatable, Sendable, CustomStringConvertible {
        public var code: UInt16
        public var jt: UInt8
        public var jf: UInt8
        public var k: UInt32

        public init(code: UInt16, jt: UInt8 = 0, jf: UInt8 = 0, k: UInt32) {
            self.code = code
            self.jt = jt
            self.jf = jf
            self.k = k
        }

        /// `{ 0x15, 0, 12, 0xc000003e }`, as `struct sock_filter` initialisers are written in C.
        public var description: String {
            "{ 0x\(hex(UInt32(code), width: 2)), \(jt), \(jf), 0x\(hex(k, width: 8)) }"
        }
    }

    /// An allowed ioctl request: its name as the kernel headers spell it, and its number.
    public struct Request: Equatable, Sendable {
        public var name: String
        public var number: UInt32

        public init(_ name: String, _ number: UInt32) {
            self.name = name
            self.number = number
        }
    }

    /// A system-call ABI as seccomp sees it: the audit architecture in `seccomp_data.arch`, ioctl's
    /// number in its table, and on x86_64 the bit that marks an x32 call.
    public struct Architecture: Equatable, Sendable {
        public var name: String
        public var audit: UInt32
        public var ioctl: UInt32
        public var x32Bit: UInt32?

        public init(name: String, audit: UInt32, ioctl: UInt32, x32Bit: UInt32?) {
            self.name = name
            self.audit = audit
            self.ioctl = ioctl
            self.x32Bit = x32Bit
        }

        /// This build's architecture, from the kernel headers; nil on one beacon-tx is not released for.
        public static var native: Architecture? {
            #if arch(x86_64)
            return Architecture(name: "x86_64", audit: beacon_tx_AUDIT_ARCH_X86_64, ioctl: beacon_tx_NR_ioctl,
                                x32Bit: beacon_tx_X32_SYSCALL_BIT)
            #elseif arch(arm64)
            return Architecture(name: "aarch64", audit: beacon_tx_AUDIT_ARCH_AARCH64, ioctl: beacon_tx_NR_ioctl, x32Bit: nil)
            #else
            return nil
            #endif
        }
    }

    /// How far an installed filter reaches.
    public enum Scope: Equatable, Sendable {
        /// seccomp(2) with SECCOMP_FILTER_FLAG_TSYNC: every thread of the process.
        case allThreads
        /// prctl(PR_SET_SECCOMP) in a process with one thread: that thread and every thread it
        /// starts, which is the whole process. Used when seccomp(2) itself is refused (systemd's
        /// `SystemCallFilter=@system-service` does not list it and answers EPERM).
        case onlyThread
    }

    /// The requests beacon-tx makes, in the order the filter tests them: the HCI device ioctls
    /// (`RawHCIHost`: list, info, up, reset) and the terminal ones (TCGETS: isatty, at start-up and
    /// for stdout; TIOCGWINSZ: the Swift runtime's crash backtracer on a terminal). HCIDEVDOWN is not
    /// among them: beacon-tx never takes a controller down. Request numbers are 32 bits (`unsigned
    /// int cmd` in the kernel).
    public static let requests: [Request] = [
        Request("HCIGETDEVINFO", UInt32(truncatingIfNeeded: beacon_tx_HCIGETDEVINFO)),
        Request("HCIGETDEVLIST", UInt32(truncatingIfNeeded: beacon_tx_HCIGETDEVLIST)),
        Request("HCIDEVUP", UInt32(truncatingIfNeeded: beacon_tx_HCIDEVUP)),
        Request("HCIDEVRESET", UInt32(truncatingIfNeeded: beacon_tx_HCIDEVRESET)),
        Request("TCGETS", UInt32(truncatingIfNeeded: beacon_tx_TCGETS)),
        Request("TIOCGWINSZ", UInt32(truncatingIfNeeded: beacon_tx_TIOCGWINSZ)),
    ]

    public let architecture: Architecture
    public let requests: [Request]
    /// The classic-BPF program (see the type's description), what the kernel is given.
    public let instructions: [Instruction]

    /// The filter for `architecture` that allows `requests`: at most 200, so every jump fits a byte.
    public init(architecture: Architecture, requests: [Request] = IoctlFilter.requests) {
        precondition(requests.count <= 200, "IoctlFilter: \(requests.count) requests; a jump must fit in 8 bits")
        self.architecture = architecture
        self.requests = requests
        let load = UInt16(beacon_tx_BPF_LD_W_ABS)
        let equal = UInt16(beacon_tx_BPF_JMP_JEQ_K)
        let atLeast = UInt16(beacon_tx_BPF_JMP_JGE_K)
        let request = beacon_tx_SECCOMP_DATA_ARGS + 8   // args[1]
        var program: [Instruction] = []
        // Jumps to `deny` / `allow` are resolved once the program's length is known.
        var toDeny: [(index: Int, whenTrue: Bool)] = []
        var toAllow: [(index: Int, whenTrue: Bool)] = []
        program.append(Instruction(code: load, k: beacon_tx_SECCOMP_DATA_ARCH))
        toDeny.append((program.count, false))
        program.append(Instruction(code: equal, k: architecture.audit))
        program.append(Instruction(code: load, k: beacon_tx_SECCOMP_DATA_NR))
        if let x32 = architecture.x32Bit {
            toDeny.append((program.count, true))
            program.append(Instruction(code: atLeast, k: x32))
        }
        toAllow.append((program.count, false))
        program.append(Instruction(code: equal, k: architecture.ioctl))
        program.append(Instruction(code: load, k: request + 4))
        toDeny.append((program.count, false))
        program.append(Instruction(code: equal, k: 0))
        program.append(Instruction(code: load, k: request))
        for allowed in requests {
            toAllow.append((program.count, true))
            program.append(Instruction(code: equal, k: allowed.number))
        }
        let deny = program.count
        program.append(Instruction(code: UInt16(beacon_tx_BPF_RET_K), k: beacon_tx_SECCOMP_RET_ERRNO | UInt32(EPERM)))
        let allow = program.count
        program.append(Instruction(code: UInt16(beacon_tx_BPF_RET_K), k: beacon_tx_SECCOMP_RET_ALLOW))
        for (targets, target) in [(toDeny, deny), (toAllow, allow)] {
            for (index, whenTrue) in targets {
                let offset = UInt8(truncatingIfNeeded: target - index - 1)
                if whenTrue { program[index].jt = offset } else { program[index].jf = offset }
            }
        }
        self.instructions = program
    }

    /// The filter for this build's architecture, or nil on one beacon-tx is not released for.
    public static var native: IoctlFilter? { Architecture.native.map { IoctlFilter(architecture: $0) } }

    /// The names of the allowed requests, for messages: `HCIGETDEVINFO, HCIGETDEVLIST, …`.
    public static var requestNames: String { requests.map(\.name).joined(separator: ", ") }

    /// The program as the kernel takes it (`struct sock_filter`), in memory the caller owns and frees;
    /// made before a fork so that the child installs it without allocating.
    public func kernelProgram() -> UnsafeMutableBufferPointer<sock_filter> {
        let buffer = UnsafeMutableBufferPointer<sock_filter>.allocate(capacity: instructions.count)
        for (i, instruction) in instructions.enumerated() {
            buffer[i] = sock_filter(code: instruction.code, jt: instruction.jt, jf: instruction.jf, k: instruction.k)
        }
        return buffer
    }

    /// Installs the filter on this process for the rest of its life (a seccomp filter cannot be
    /// removed; `exec` keeps it). Sets no_new_privs first, which an unprivileged filter needs.
    /// seccomp(2) with TSYNC filters every thread at once; when seccomp(2) itself is refused (a
    /// supervisor's filter, a kernel without it), prctl(PR_SET_SECCOMP) installs the same program,
    /// but only while the process has a single thread, which then is all of it.
    public func install() throws(IoctlFilterError) -> Scope {
        let program = kernelProgram()
        defer { program.deallocate() }
        let count = UInt16(program.count)
        guard beacon_tx_set_no_new_privs() == 0 else {
            throw .failed(call: "prctl(PR_SET_NO_NEW_PRIVS)", errno: Glibc.errno)
        }
        let synchronized = beacon_tx_install_seccomp_filter(program.baseAddress, count, 1)
        if synchronized == 0 { return .allThreads }
        if synchronized > 0 { throw .threadNotSynchronized(thread: Int32(truncatingIfNeeded: synchronized)) }
        let refused = Glibc.errno
        // /proc/self/task has one entry per thread of this process.
        let threads = RFKillSwitch.listDirectory("/proc/self/task").count
        guard threads == 1 else { throw .otherThreads(count: threads, seccompErrno: refused) }
        guard beacon_tx_install_seccomp_filter(program.baseAddress, count, 0) == 0 else {
            throw .failed(call: "prctl(PR_SET_SECCOMP) after seccomp(2) failed with \(errnoName(refused))", errno: Glibc.errno)
        }
        return .onlyThread
    }

    /// Installs the native filter (`install()`); `.unsupportedArchitecture` where there is none.
    public static func installNative() -> Result<Scope, IoctlFilterError> {
        guard let filter = native else { return .failure(.unsupportedArchitecture) }
        do throws(IoctlFilterError) { return .success(try filter.install()) } catch { return .failure(error) }
    }
}

/// Why the ioctl filter is not installed. No filter is installed in any of these cases (no_new_privs
/// may be set: it only keeps exec from gaining privileges).
public enum IoctlFilterError: Error, Equatable, Sendable, CustomStringConvertible {
    /// This build is for an architecture the filter has no audit architecture for.
    case unsupportedArchitecture
    /// A call failed with an errno.
    case failed(call: String, errno: Int32)
    /// seccomp(2) with TSYNC: this thread could not take the filter (it runs another filter tree).
    case threadNotSynchronized(thread: Int32)
    /// seccomp(2) was refused with `seccompErrno`, and prctl cannot reach the other threads
    /// (`count` threads, or 0 when /proc/self/task cannot be read).
    case otherThreads(count: Int, seccompErrno: Int32)

    public var description: String {
        switch self {
        case .unsupportedArchitecture:
            return "no seccomp filter for this architecture (only x86_64 and aarch64)"
        case let .failed(call, code):
            return "\(call): \(errnoName(code))"
        case let .threadNotSynchronized(thread):
            return "seccomp(SECCOMP_FILTER_FLAG_TSYNC): thread \(thread) cannot take the filter"
        case let .otherThreads(count, code):
            return "seccomp(2): \(errnoName(code)), and prctl(PR_SET_SECCOMP) would miss the other threads ("
                + (count == 0 ? "/proc/self/task unreadable" : "\(count) threads") + ")"
        }
    }
}

/// `Operation not permitted (EPERM)`: strerror's text with the symbol of the errnos seccomp and prctl
/// document; `errno N` for another.
func errnoName(_ code: Int32) -> String {
    let symbols: [Int32: String] = [EPERM: "EPERM", EACCES: "EACCES", EINVAL: "EINVAL", EFAULT: "EFAULT", ENOMEM: "ENOMEM",
                                    ENOSYS: "ENOSYS", ESRCH: "ESRCH", EBUSY: "EBUSY", EOPNOTSUPP: "EOPNOTSUPP"]
    let text = strerror(code).map { String(cString: $0) } ?? "errno \(code)"
    return symbols[code].map { "\(text) (\($0))" } ?? "\(text) (errno \(code))"
}

private func hex(_ value: UInt32, width: Int) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
}
