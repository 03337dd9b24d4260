import PackSync

extension PackEngine {
    /// `handoff start --live` or `--no-live`: the run just started is sent live, or not.
    /// Returns whether anything can be sent (the pack syncs).
    func setLive(_ on: Bool) -> Bool {
        guard let live = settings.live else { return false }
        if let run = recording.run { live.set(live: on, run: run.uuid) }
        return true
    }
}
