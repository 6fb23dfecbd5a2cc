// SPDX-License-Identifier: Apache-2.0
/// A session of either mode: a shell around its `SessionMachine`, whose members read as its own
/// (`session.phase`, `session.isYielding`, `session.nextDeadline`); its knobs are `policy`.
@dynamicMemberLookup
public protocol SessionShell: AnyObject {
    var machine: SessionMachine { get }
}

extension SessionShell {
    public subscript<T>(dynamicMember member: KeyPath<SessionMachine, T>) -> T { machine[keyPath: member] }
}
