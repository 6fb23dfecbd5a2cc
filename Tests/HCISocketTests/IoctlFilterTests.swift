// SPDX-License-Identifier: Apache-2.0
import CBlueZ
import Glibc
@testable import HCISocket
import Testing

/// The seccomp filter that confines ioctl(2): its program as data (literal values from the kernel
/// headers, never the filter's own constants), what the program answers for each kind of call, and
/// the real kernel's answer in a forked child that installs it.
@Suite struct IoctlFilterTests {
    typealias I = IoctlFilter.Instruction

    /// x86_64 as the kernel headers give it: AUDIT_ARCH_X86_64, __NR_ioctl 16, __X32_SYSCALL_BIT.
    static let x86_64 = IoctlFilter.Architecture(name: "x86_64", audit: 0xC000_003E, ioctl: 16, x32Bit: 0x4000_0000)
    /// aarch64: AUDIT_ARCH_AARCH64, __NR_ioctl 29, no x32.
    static let aarch64 = IoctlFilter.Architecture(name: "aarch64", audit: 0xC000_00B7, ioctl: 29, x32Bit: nil)

    /// The allow-list: names and numbers as <bluetooth/hci.h> (_IOW/_IOR('H', …, int)) and
    /// <asm-generic/ioctls.h> define them.
    @Test func theAllowListIsTheHCIRequestsAndTheTerminalQueries() {
        #expect(IoctlFilter.requests == [
            .init("HCIGETDEVINFO", 0x8004_48D3),
            .init("HCIGETDEVLIST", 0x8004_48D2),
            .init("HCIDEVUP", 0x4004_48C9),
            .init("HCIDEVRESET", 0x4004_48CB),
            .init("TCGETS", 0x5401),
            .init("TIOCGWINSZ", 0x5413),
        ])
        #expect(!IoctlFilter.requests.contains { $0.name == "HCIDEVDOWN" }, "beacon-tx never takes a controller down")
    }

    @Test func theNativeArchitectureComesFromTheHeaders() throws {
        #if arch(x86_64)
        #expect(IoctlFilter.Architecture.native == Self.x86_64)
        #elseif arch(arm64)
        #expect(IoctlFilter.Architecture.native == Self.aarch64)
        #else
        #expect(IoctlFilter.Architecture.native == nil)
        #endif
        if let native = IoctlFilter.Architecture.native {
            #expect(IoctlFilter.native == IoctlFilter(architecture: native))
        }
    }

    /// The whole x86_64 program: opcodes BPF_LD|BPF_W|BPF_ABS 0x20, BPF_JMP|BPF_JEQ|BPF_K 0x15,
    /// BPF_JMP|BPF_JGE|BPF_K 0x35, BPF_RET|BPF_K 0x06; seccomp_data: nr at 0, arch at 4, args[1] at 24
    /// (low half) and 28 (high half); SECCOMP_RET_ERRNO|EPERM 0x00050001, SECCOMP_RET_ALLOW 0x7fff0000.
    @Test func theX86Program() {
        #expect(IoctlFilter(architecture: Self.x86_64).instructions == [
            I(code: 0x20, k: 4),                           //  0 ld arch
            I(code: 0x15, jt: 0, jf: 12, k: 0xC000_003E),  //  1 not x86_64 → deny (14)
            I(code: 0x20, k: 0),                           //  2 ld nr
            I(code: 0x35, jt: 10, jf: 0, k: 0x4000_0000),  //  3 x32 → deny
            I(code: 0x15, jt: 0, jf: 10, k: 16),           //  4 not ioctl → allow (15)
            I(code: 0x20, k: 28),                          //  5 ld request, high half
            I(code: 0x15, jt: 0, jf: 7, k: 0),             //  6 not 0 → deny
            I(code: 0x20, k: 24),                          //  7 ld request, low half
            I(code: 0x15, jt: 6, jf: 0, k: 0x8004_48D3),   //  8 HCIGETDEVINFO → allow
            I(code: 0x15, jt: 5, jf: 0, k: 0x8004_48D2),   //  9 HCIGETDEVLIST
            I(code: 0x15, jt: 4, jf: 0, k: 0x4004_48C9),   // 10 HCIDEVUP
            I(code: 0x15, jt: 3, jf: 0, k: 0x4004_48CB),   // 11 HCIDEVRESET
            I(code: 0x15, jt: 2, jf: 0, k: 0x5401),        // 12 TCGETS
            I(code: 0x15, jt: 1, jf: 0, k: 0x5413),        // 13 TIOCGWINSZ
            I(code: 0x06, k: 0x0005_0001),                 // 14 deny: ERRNO | EPERM
            I(code: 0x06, k: 0x7FFF_0000),                 // 15 allow
        ])
    }

    /// aarch64 has no x32 table, so no x32 test: one instruction less, the same jumps after it.
    @Test func theAArch64Program() {
        #expect(IoctlFilter(architecture: Self.aarch64).instructions == [
            I(code: 0x20, k: 4),
            I(code: 0x15, jt: 0, jf: 11, k: 0xC000_00B7),  //  1 not aarch64 → deny (13)
            I(code: 0x20, k: 0),
            I(code: 0x15, jt: 0, jf: 10, k: 29),           //  3 not ioctl → allow (14)
            I(code: 0x20, k: 28),
            I(code: 0x15, jt: 0, jf: 7, k: 0),
            I(code: 0x20, k: 24),
            I(code: 0x15, jt: 6, jf: 0, k: 0x8004_48D3),
            I(code: 0x15, jt: 5, jf: 0, k: 0x8004_48D2),
            I(code: 0x15, jt: 4, jf: 0, k: 0x4004_48C9),
            I(code: 0x15, jt: 3, jf: 0, k: 0x4004_48CB),
            I(code: 0x15, jt: 2, jf: 0, k: 0x5401),
            I(code: 0x15, jt: 1, jf: 0, k: 0x5413),
            I(code: 0x06, k: 0x0005_0001),
            I(code: 0x06, k: 0x7FFF_0000),
        ])
        #expect(I(code: 0x15, jt: 0, jf: 11, k: 0xC000_00B7).description == "{ 0x15, 0, 11, 0xc00000b7 }")
    }

    /// Runs `program` on one `struct seccomp_data` as the kernel's classic-BPF interpreter does
    /// (only the opcodes the filter uses; any other fails the test).
    func run(_ program: [I], nr: UInt32, arch: UInt32, request: UInt64) -> UInt32? {
        var data = [UInt8](repeating: 0, count: 64)
        func put(_ value: UInt64, at offset: Int, bytes: Int) {
            for i in 0..<bytes { data[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(i))) }
        }
        put(UInt64(nr), at: 0, bytes: 4)
        put(UInt64(arch), at: 4, bytes: 4)
        put(3, at: 16, bytes: 8)          // args[0]: a descriptor
        put(request, at: 24, bytes: 8)    // args[1]
        var accumulator: UInt32 = 0
        var pc = 0
        while pc < program.count {
            let i = program[pc]
            pc += 1
            switch i.code {
            case 0x20:
                let at = Int(i.k)
                accumulator = (0..<4).reduce(UInt32(0)) { $0 | UInt32(data[at + $1]) << (8 * UInt32($1)) }
            case 0x15: pc += Int(accumulator == i.k ? i.jt : i.jf)
            case 0x35: pc += Int(accumulator >= i.k ? i.jt : i.jf)
            case 0x06: return i.k
            default:
                Issue.record("opcode \(i.code) at \(pc - 1)")
                return nil
            }
        }
        Issue.record("ran off the end")
        return nil
    }

    @Test func whatTheProgramAnswers() {
        let allow: UInt32 = 0x7FFF_0000, eperm: UInt32 = 0x0005_0001
        for arch in [Self.x86_64, Self.aarch64] {
            let p = IoctlFilter(architecture: arch).instructions
            for r in IoctlFilter.requests {
                #expect(run(p, nr: arch.ioctl, arch: arch.audit, request: UInt64(r.number)) == allow, "\(arch.name) \(r.name)")
            }
            // SIOCGIFFLAGS, SIOCSIFFLAGS, SIOCSIFMTU, SIOCSIFNAME, HCIDEVDOWN (_IOW('H', 202, int)).
            for request: UInt64 in [0x8913, 0x8914, 0x8922, 0x8923, 0x4004_48CA] {
                #expect(run(p, nr: arch.ioctl, arch: arch.audit, request: request) == eperm, "\(arch.name) \(request)")
            }
            // An allowed number with bits above 32 (the kernel would read it as TCGETS).
            #expect(run(p, nr: arch.ioctl, arch: arch.audit, request: 0x1_0000_5401) == eperm)
            // Another system call, whatever its second argument.
            #expect(run(p, nr: arch.ioctl + 1, arch: arch.audit, request: 0x8914) == allow)
            // Another architecture's table (i386 0x40000003: ioctl is 54 there): nothing passes.
            #expect(run(p, nr: 54, arch: 0x4000_0003, request: 0x5401) == eperm)
            #expect(run(p, nr: arch.ioctl, arch: 0x4000_0003, request: 0x5401) == eperm)
        }
        // x32 (x86_64's audit arch, the x32 bit set; x32's ioctl is 514): nothing passes.
        #expect(run(IoctlFilter(architecture: Self.x86_64).instructions, nr: 0x4000_0202, arch: 0xC000_003E, request: 0x5401) == eperm)
        #expect(run(IoctlFilter(architecture: Self.x86_64).instructions, nr: 0x4000_0001, arch: 0xC000_003E, request: 0) == eperm)
    }

    /// errno of one probe, 0 when it succeeded.
    static func probeErrno(_ result: Int32) -> Int32 { result == 0 ? 0 : Glibc.errno }

    /// The real kernel. A forked child (one thread; only system calls between fork and _exit)
    /// probes an AF_UNIX socket before and after installing the native filter and writes each errno
    /// into shared memory. Without the filter SIOCGIFFLAGS on lo works for anyone; with it every
    /// interface ioctl fails with EPERM, while the allowed requests reach the socket (ENOTTY).
    @Test func interfaceIoctlsFailWithEPERMOnceTheFilterIsInstalled() throws {
        let filter = try #require(IoctlFilter.native, "no filter for this architecture")
        let program = filter.kernelProgram()
        defer { program.deallocate() }
        let count = UInt16(program.count)

        // Results: slot i holds the errno of probe i (0: success); -1000 marks "not reached".
        let pageSize = 4096
        let shared = mmap(nil, pageSize, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0)
        try #require(shared != MAP_FAILED)
        defer { munmap(shared, pageSize) }
        let slots = try #require(shared).bindMemory(to: Int32.self, capacity: 32)
        for i in 0..<32 { slots[i] = -1000 }

        func request(_ interface: String) -> UnsafeMutablePointer<ifreq> {
            let r = UnsafeMutablePointer<ifreq>.allocate(capacity: 1)
            r.initialize(to: ifreq())
            withUnsafeMutableBytes(of: &r.pointee.ifr_ifrn.ifrn_name) { name in
                for (i, byte) in interface.utf8.prefix(name.count - 1).enumerated() { name[i] = byte }
            }
            return r
        }
        let lo = request("lo")
        // An interface that does not exist: a set that got through would find nothing to change.
        let missing = request("btxprobe0")
        defer { lo.deallocate(); missing.deallocate() }
        let getFlags = UInt(SIOCGIFFLAGS), setFlags = UInt(SIOCSIFFLAGS), setMTU = UInt(SIOCSIFMTU), setName = UInt(SIOCSIFNAME)
        let hci = IoctlFilter.requests.map { UInt($0.number) }
        try #require(hci.count == 6)
        let wideTCGETS = UInt(0x1_0000_5401)

        let pid = fork()
        try #require(pid >= 0, "fork: \(Glibc.errno)")
        if pid == 0 {
            // The child: system calls only, then _exit.
            let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            if fd < 0 { _exit(3) }
            slots[0] = Self.probeErrno(beacon_tx_ioctl_ptr(fd, getFlags, lo))
            slots[1] = Self.probeErrno(beacon_tx_ioctl_ptr(fd, setMTU, missing))
            slots[2] = Self.probeErrno(beacon_tx_ioctl_ptr(fd, wideTCGETS, lo))
            slots[3] = Self.probeErrno(beacon_tx_set_no_new_privs())
            let installed = beacon_tx_install_seccomp_filter(program.baseAddress, count, 1)
            slots[4] = installed == 0 ? 0 : installed > 0 ? -2 : Glibc.errno
            slots[5] = Self.probeErrno(beacon_tx_ioctl_ptr(fd, getFlags, lo))
            slots[6] = Self.probeErrno(beacon_tx_ioctl_ptr(fd, setFlags, missing))
            slots[7] = Self.probeErrno(beacon_tx_ioctl_ptr(fd, setMTU, missing))
            slots[8] = Self.probeErrno(beacon_tx_ioctl_ptr(fd, setName, missing))
            slots[9] = Self.probeErrno(beacon_tx_ioctl_ptr(fd, wideTCGETS, lo))
            slots[10] = Self.probeErrno(beacon_tx_ioctl_ptr(fd, hci[0], lo))
            slots[11] = Self.probeErrno(beacon_tx_ioctl_ptr(fd, hci[1], lo))
            slots[12] = Self.probeErrno(beacon_tx_ioctl_int(fd, hci[2], 0))
            slots[13] = Self.probeErrno(beacon_tx_ioctl_int(fd, hci[3], 0))
            slots[14] = Self.probeErrno(beacon_tx_ioctl_ptr(fd, hci[4], lo))
            slots[15] = Self.probeErrno(beacon_tx_ioctl_ptr(fd, hci[5], lo))
            _exit(0)
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && Glibc.errno == EINTR {}
        #expect(status & 0x7F == 0, "the child was killed by signal \(status & 0x7F)")
        #expect((status >> 8) & 0xFF == 0, "the child exited \((status >> 8) & 0xFF)")

        // Before the filter.
        #expect(slots[0] == 0, "SIOCGIFFLAGS lo before the filter: errno \(slots[0])")
        #expect(slots[1] == ENODEV || slots[1] == EPERM, "SIOCSIFMTU on a missing interface before the filter: errno \(slots[1])")
        #expect(slots[2] == ENOTTY, "the kernel reads a request as 32 bits: TCGETS with bit 32 set is TCGETS (errno \(slots[2]))")
        #expect(slots[3] == 0, "prctl(PR_SET_NO_NEW_PRIVS): errno \(slots[3])")
        // qemu's user-mode emulation (the aarch64 unit tests, scripts/test-arm64) has no seccomp and
        // answers ENOSYS: nothing is installed, so there is nothing after the filter to check.
        // A real kernel (x86_64 here, the arm64 guest) never answers ENOSYS to seccomp(2).
        if slots[4] == ENOSYS, Self.underUserModeEmulation { return }
        #expect(slots[4] == 0, "seccomp(SECCOMP_SET_MODE_FILTER, TSYNC): \(slots[4])")
        // After: every interface ioctl is refused, reads included.
        for (slot, name) in [(5, "SIOCGIFFLAGS"), (6, "SIOCSIFFLAGS"), (7, "SIOCSIFMTU"), (8, "SIOCSIFNAME"), (9, "TCGETS | 1 << 32")] {
            #expect(slots[slot] == EPERM, "\(name) after the filter: errno \(slots[slot])")
        }
        // The allowed requests reach the socket, which knows none of them.
        for (slot, allowed) in zip(10...15, IoctlFilter.requests) {
            #expect(slots[slot] == ENOTTY, "\(allowed.name) after the filter: errno \(slots[slot])")
        }
    }

    /// Where an ENOSYS from seccomp(2) means "no seccomp here" rather than a defect: the aarch64
    /// unit tests run under qemu's user-mode emulation (scripts/test-arm64), which has none. On
    /// x86_64 the tests run on the real kernel, which has it.
    static var underUserModeEmulation: Bool {
        #if arch(arm64)
        return true
        #else
        return false
        #endif
    }
}
