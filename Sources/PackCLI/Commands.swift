import ArgumentParser

/// The `handoff` CLI's subcommands; the executable's root command lists them.
public enum HandoffCommands {
    public static let all: [any ParsableCommand.Type] = [
        Status.self, Start.self, Pause.self, Resume.self, Lap.self, Stop.self, Runs.self, Show.self, Delete.self,
        Export.self,
        Import.self,
        Decode.self,
        GPS.self, Steps.self, Scan.self, Pair.self, Sensors.self, Forget.self, SensorCommand.self, Demo.self,
        Simulate.self, Link.self, Unlink.self, Sync.self, BatonCommand.self, Doctor.self,
    ]

    public static let discussion = """
        handoff drives handoffd, the pack's recording service, over its control socket. Every data \
        command takes --json for scripts. First time here? Run `handoff demo`.
        """
}
