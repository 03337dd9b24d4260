import Dispatch
import Foundation
import HandoffModel
import Logging
import PackControl
import PackSensors
import PackStorage
import PackSync
import ServiceLifecycle
import Synchronization

/// Assembles and runs `handoffd`: opens and recovers the journal, then runs the engine, the
/// sensor sources and the control socket as services until SIGTERM or SIGINT.
public enum PackDaemon {
    /// Runs the daemon on the cooperative pool while the calling (main) thread waits for it.
    ///
    /// `handoffd`'s main is synchronous on purpose: an async `main` that suspends hands the main
    /// thread to `dispatch_main`, whose `sigsuspend` crashes valgrind 3.19 (Debian 12), and the
    /// instruction benchmarks in BENCHMARKS.md run `handoffd` under callgrind.
    public static func runBlocking(configuration: PackConfiguration, logger: Logger) throws {
        let outcome = Mutex<Result<Void, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            do {
                try await run(configuration: configuration, logger: logger)
                outcome.withLock { $0 = .success(()) }
            } catch {
                outcome.withLock { $0 = .failure(error) }
            }
            done.signal()
        }
        done.wait()
        try outcome.withLock { $0! }.get()
    }

    public static func run(configuration: PackConfiguration, logger: Logger) async throws {
        let databaseDirectory = (configuration.databasePath as NSString).deletingLastPathComponent
        if !databaseDirectory.isEmpty {
            try FileManager.default.createDirectory(
                atPath: databaseDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o750])
        }
        let database = try PackDatabase(path: configuration.databasePath, logger: logger)
        let recovered = try database.recoverOpenSessions(now: PackClock.wall())
        for run in recovered {
            logger.warning(
                "Recovered a run left open by a crash or power cut: run \(run.id), \(run.pointCount) points, ended at its last saved second (\(run.lastElapsedSeconds) s)",
                metadata: ["session.id": "\(run.id)", "session.uuid": "\(run.uuid)"])
        }

        let live = configuration.replayFile == nil || configuration.replayLive
        let mode: PackEngine.Mode = live ? .live : .replay
        let bluetooth = live && configuration.bluetoothEnabled
        if bluetooth { BluetoothSetup.prepare(configuration, logger: logger) }
        var sources = live ? liveSources(configuration) : []
        if bluetooth { sources += try BluetoothControl.pairedSources(database, configuration) }
        let engine = PackEngine(
            database: database, configuration: configuration, mode: mode, sensors: sources.map(\.descriptor),
            recoveredRuns: recovered.map(\.id.rawValue), logger: logger)

        if let capturePath = configuration.captureFile {
            var sensors: [SensorDescriptor] = sources.map(\.descriptor)
            if let replay = configuration.replayFile {
                sensors += try CaptureFileReader(path: replay).header.sensors.filter { sensor in
                    configuration.replaySensors.map { $0.contains(sensor.id.rawValue) } ?? true
                }
            }
            let header = CaptureHeader(sensors: sensors, createdBy: "handoffd \(HandoffVersion.current)")
            await engine.setCapture(try CaptureFileWriter(path: capturePath, header: header))
            logger.info("Capturing every event to \(capturePath)")
        }

        if live { await engine.checkClock() }
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [.init(service: EngineService(engine: engine))]
        if let replay = configuration.replayFile {
            services.append(
                .init(
                    service: ReplayService(
                        engine: engine, path: replay,
                        speed: configuration.replayLive ? .factor(1) : configuration.replaySpeed,
                        restamp: configuration.replayLive, startNow: configuration.replayStartNow,
                        sensors: configuration.replaySensors, logger: logger),
                    successTerminationBehavior: configuration.exitAfterReplay ? .gracefullyShutdownGroup : .ignore,
                    failureTerminationBehavior: .gracefullyShutdownGroup))
        }
        var sync: SyncWorker?
        if configuration.syncEnabled {
            let worker = SyncWorker(database: database, configuration: configuration.sync, logger: logger)
            let monitor = NetworkMonitor(
                source: configuration.syncNetwork, interface: configuration.syncInterface,
                wpaDirectory: configuration.syncWPADirectory
            ) { state in
                Task { await worker.networkChanged(state) }
            }
            await engine.setRunFinishedHandler { worker.wakeup.poke() }
            services.append(.init(service: SyncService(worker: worker, monitor: monitor)))
            sync = worker
        }
        if live && configuration.gpioEnabled {
            services.append(.init(service: panel(configuration, engine: engine, sync: sync, logger: logger)))
        }
        let runner = SourceRunner(logger: logger)
        let pins = ClassicPINs(bluetooth ? (try database.pairedSensors()) : [])
        if bluetooth { runner.start(PairingAgentSource(pins: pins)) }
        let notifier = SystemdNotifier(logger: logger)
        let heartbeat = RecorderHeartbeat()
        if live {
            services.append(.init(service: TickService(engine: engine, heartbeat: heartbeat)))
            services.append(.init(service: SensorService(engine: engine, runner: runner, initial: sources)))
        }
        let control =
            bluetooth
            ? BluetoothControl(
                engine: engine, database: database, runner: runner, configuration: configuration, pins: pins,
                logger: logger) : nil
        services.append(
            .init(
                service: ControlServer(
                    path: configuration.socketPath, engine: engine, bluetooth: control, sync: sync,
                    doctor: Doctor(configuration: configuration, database: database, engine: engine, sync: sync),
                    logger: logger,
                    onListening: {
                        notifier.ready(status: live ? "Ready; listening on \(configuration.socketPath)" : "Replaying")
                    }),
                failureTerminationBehavior: .gracefullyShutdownGroup))
        // Last, so that it is the first told of a shutdown (the group stops services in reverse):
        // systemd hears STOPPING=1 at once, while the engine still finishes the run.
        services.append(
            .init(
                service: WatchdogService(
                    notifier: notifier, heartbeat: heartbeat, engine: engine, probe: !live, logger: logger)))
        var groupConfiguration = ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = .seconds(20)
        let group = ServiceGroup(configuration: groupConfiguration)
        logger.info(
            "handoffd \(HandoffVersion.current) running",
            metadata: [
                "database": "\(configuration.databasePath)", "socket": "\(configuration.socketPath)",
                "source": "\(configuration.replayFile.map { "replay \($0)" } ?? "live")",
                "sensors":
                    "\(sources.map { "\($0.descriptor.id) (\($0.descriptor.transport?.rawValue ?? "?"))" }.joined(separator: ", "))",
            ])
        try await group.run()
        logger.info("handoffd stopped")
    }

    /// `handoffd --doctor`: the checks of `handoff doctor` without a running service (it would
    /// take the journal's lock and the sensors), for when handoffd does not answer. The journal is
    /// opened read-only; the store and Wi-Fi are looked at as the sync worker would.
    public static func doctor(configuration: PackConfiguration, logger: Logger) async -> DoctorReport {
        var database: PackDatabase?
        if FileManager.default.fileExists(atPath: configuration.databasePath) {
            database = try? PackDatabase(path: configuration.databasePath, readOnly: true, logger: logger)
        }
        var sync: SyncWorker?
        if configuration.syncEnabled, let database {
            let worker = SyncWorker(database: database, configuration: configuration.sync, logger: logger)
            if configuration.syncNetwork != .always {
                let monitor = NetworkMonitor(
                    source: configuration.syncNetwork, interface: configuration.syncInterface,
                    wpaDirectory: configuration.syncWPADirectory
                ) { _ in }
                await worker.networkChanged(monitor.readOnce())
            }
            sync = worker
        }
        let doctor = Doctor(configuration: configuration, database: database, engine: nil, sync: sync)
        return DoctorReport(checks: await doctor.run())
    }

    /// The button and LED on their GPIO lines. A line that cannot be had is logged and left out:
    /// the pack records without its button (the CLI still works).
    static func panel(
        _ c: PackConfiguration, engine: PackEngine, sync: SyncWorker?, logger: Logger
    ) -> PanelService {
        var button: GPIOLine?
        var led: GPIOLine?
        if let line = c.gpioButton {
            do {
                button = try GPIOLine.button(
                    chip: c.gpioChip, line: line, activeLow: c.gpioButtonActiveLow,
                    debounceMs: Int(c.gpioDebounceSeconds * 1000))
            } catch {
                logger.error(
                    "The button's GPIO line cannot be had: \(error). Check gpio.chip and gpio.button (`gpioinfo` lists the lines) and that handoffd may open \(c.gpioChip) (group gpio)"
                )
            }
        }
        if let line = c.gpioLED {
            do { led = try GPIOLine.led(chip: c.gpioChip, line: line, activeLow: c.gpioLEDActiveLow) } catch {
                logger.error(
                    "The LED's GPIO line cannot be had: \(error). Check gpio.chip and gpio.led (`gpioinfo` lists the lines)"
                )
            }
        }
        logger.info(
            "Button and LED",
            metadata: ["chip": "\(c.gpioChip)", "button": "\(button?.name ?? "none")", "led": "\(led?.name ?? "none")"])
        return PanelService(
            engine: engine, sync: sync, button: button, led: led, gpsConfigured: c.gpsSource != .none,
            debounce: c.gpioDebounceSeconds, longPress: c.gpioLongPressSeconds, logger: logger)
    }

    /// The live sources the configuration asks for.
    static func liveSources(_ c: PackConfiguration) -> [any LiveSource] {
        var sources: [any LiveSource] = []
        switch c.gpsSource {
        case .gpsd: sources.append(GpsdSource(host: c.gpsdHost, port: c.gpsdPort))
        case .serial: sources.append(SerialNMEASource(device: c.gpsDevice, baudRate: c.gpsBaudRate))
        case .none: break
        }
        if let pedometer = PedometerSelection.source(
            order: c.stepSources.map(\.rawValue), sysfs: c.sysfsRoot, deviceRoot: c.deviceRoot,
            rate: c.accelerometerRateHz)
        {
            sources.append(pedometer)
        }
        return sources
    }
}
