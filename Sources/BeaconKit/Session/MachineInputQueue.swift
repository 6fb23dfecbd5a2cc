// SPDX-License-Identifier: Apache-2.0
/// The machine's inputs, queued, for both modes' sessions: an effect's outcome is the next input,
/// never handled inside the effect. `send` called from inside an effect only queues; the outermost
/// call steps the machine until the queue is empty.
final class MachineInputQueue {
    private var pending: [SessionMachine.Input] = []
    private var draining = false

    /// Queues `input`. Returns false when an outer call is draining (it will step this input too);
    /// true when this call stepped every queued input through `step` and carried out each effect
    /// with `perform`.
    func send(_ input: SessionMachine.Input, step: (SessionMachine.Input) -> [SessionMachine.Effect],
              perform: (SessionMachine.Effect) -> Void) -> Bool {
        pending.append(input)
        guard !draining else { return false }
        draining = true
        defer { draining = false }
        while !pending.isEmpty {
            let next = pending.removeFirst()
            for effect in step(next) { perform(effect) }
        }
        return true
    }
}
