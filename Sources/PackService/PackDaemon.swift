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
        let databaseDirectory = (configuration.storage.databasePath as NSString).deletingLastPathComponent
        if !databaseDirectory.isEmpty {
            try FileManager.default.createDirectory(
                atPath: databaseDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o750])
        }
        let database = try PackDatabase(path: configuration.storage.databasePath, logger: logger)
        // The pack's one clock: the engine, the sources and the recovery all read it.
        let clock = configuration.recording.clock
        let recovered = try database.recoverOpenSessions(now: clock.wall())
        for run in recovered {
            logger.warning(
                "Recovered a run left open by a crash or power cut: run \(run.id), \(run.pointCount) points, ended at its last saved second (\(run.lastElapsedSeconds) s)",
                metadata: ["session.id": "\(run.id)", "session.uuid": "\(run.uuid)"])
        }

        let live = configuration.replay.file == nil || configuration.replay.live
        let mode: PackEngine.Mode = live ? .live : .replay
        let bluetooth = live && configuration.bluetooth.enabled
        if bluetooth { BluetoothSetup.prepare(configuration, logger: logger) }
        var sources = live ? liveSources(configuration, clock: clock) : []
        if bluetooth { sources += try BluetoothControl.pairedSources(database, configuration, clock: clock) }
        // Live tracking's queue: only a pack that syncs has a store to send to.
        let liveFeed = configuration.sync.enabled ? LiveFeed(settings: configuration.sync.live.settings) : nil
        let engine = PackEngine(
            database: database, configuration: configuration, mode: mode, sensors: sources.map(\.descriptor),
            recoveredRuns: recovered.map(\.id.rawValue), logger: logger, clock: clock, live: liveFeed)

        if let capturePath = configuration.capture.file {
            var sensors: [SensorDescriptor] = sources.map(\.descriptor)
            if let replay = configuration.replay.file {
                sensors += try CaptureFileReader(path: replay).header.sensors.filter { sensor in
                    configuration.replay.sensors.map { $0.contains(sensor.id.rawValue) } ?? true
                }
            }
            let header = CaptureHeader(sensors: sensors, createdBy: "handoffd \(HandoffVersion.current)")
            await engine.setCapture(try CaptureFileWriter(path: capturePath, header: header))
            logger.info("Capturing every event to \(capturePath)")
        }

        if live { await engine.checkClock() }
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [.init(service: EngineService(engine: engine))]
        if let replay = configuration.replay.file {
            services.append(
                .init(
                    service: ReplayService(
                        engine: engine, path: replay,
                        speed: configuration.replay.live ? .factor(1) : configuration.replay.speed,
                        restamp: configuration.replay.live, startNow: configuration.replay.startNow,
                        sensors: configuration.replay.sensors, logger: logger),
                    successTerminationBehavior: configuration.replay.exitAfterReplay
                        ? .gracefullyShutdownGroup : .ignore,
                    failureTerminationBehavior: .gracefullyShutdownGroup))
        }
        var sync: SyncWorker?
        if configuration.sync.enabled {
            let worker = SyncWorker(
                database: database, configuration: configuration.syncWorkerConfiguration, logger: logger)
            let monitor = NetworkMonitor(
                source: configuration.sync.home.network, interface: configuration.sync.home.interface,
                wpaDirectory: configuration.sync.home.wpaDirectory
            ) { state in
                Task { await worker.networkChanged(state) }
            }
            await engine.setRunFinishedHandler { worker.wakeup.poke() }
            services.append(.init(service: SyncService(worker: worker, monitor: monitor, logger: logger)))
            if let liveFeed {
                let sender = LiveSender(
                    feed: liveFeed, linkPath: configuration.resolvedLinkPath, zones: configuration.sync.privacy.zones,
                    logger: logger)
                services.append(.init(service: LiveService(sender: sender)))
            }
            sync = worker
        }
        if live && configuration.gpio.enabled {
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
                    path: configuration.control.socketPath, engine: engine, bluetooth: control, sync: sync,
                    doctor: Doctor(configuration: configuration, database: database, engine: engine, sync: sync),
                    logger: logger,
                    onListening: {
                        notifier.ready(
                            status: live ? "Ready; listening on \(configuration.control.socketPath)" : "Replaying")
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
                "database": "\(configuration.storage.databasePath)", "socket": "\(configuration.control.socketPath)",
                "source": "\(configuration.replay.file.map { "replay \($0)" } ?? "live")",
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
        if FileManager.default.fileExists(atPath: configuration.storage.databasePath) {
            database = try? PackDatabase(path: configuration.storage.databasePath, readOnly: true, logger: logger)
        }
        var sync: SyncWorker?
        if configuration.sync.enabled, let database {
            let worker = SyncWorker(
                database: database, configuration: configuration.syncWorkerConfiguration, logger: logger)
            if configuration.sync.home.network != .always {
                let monitor = NetworkMonitor(
                    source: configuration.sync.home.network, interface: configuration.sync.home.interface,
                    wpaDirectory: configuration.sync.home.wpaDirectory
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
        if let line = c.gpio.button {
            do {
                button = try GPIOLine.button(
                    chip: c.gpio.chip, line: line, activeLow: c.gpio.buttonActiveLow,
                    debounceMs: Int(c.gpio.debounceSeconds * 1000))
            } catch {
                logger.error(
                    "The button's GPIO line cannot be had: \(error). Check gpio.chip and gpio.button (`gpioinfo` lists the lines) and that handoffd may open \(c.gpio.chip) (group gpio)"
                )
            }
        }
        if let line = c.gpio.led {
            do { led = try GPIOLine.led(chip: c.gpio.chip, line: line, activeLow: c.gpio.ledActiveLow) } catch {
                logger.error(
                    "The LED's GPIO line cannot be had: \(error). Check gpio.chip and gpio.led (`gpioinfo` lists the lines)"
                )
            }
        }
        logger.info(
            "Button and LED",
            metadata: [
                "chip": "\(c.gpio.chip)", "button": "\(button?.name ?? "none")", "led": "\(led?.name ?? "none")",
            ])
        return PanelService(
            engine: engine, sync: sync, button: button, led: led, gpsConfigured: c.gps.source != .none,
            debounce: c.gpio.debounceSeconds, longPress: c.gpio.longPressSeconds, logger: logger)
    }

    /// The live sources the configuration asks for, on the pack's clock.
    static func liveSources(_ c: PackConfiguration, clock: PackClock) -> [any LiveSource] {
        var sources: [any LiveSource] = []
        switch c.gps.source {
        case .gpsd: sources.append(GpsdSource(host: c.gps.gpsdHost, port: c.gps.gpsdPort, clock: clock))
        case .serial: sources.append(SerialNMEASource(device: c.gps.device, baudRate: c.gps.baudRate, clock: clock))
        case .none: break
        }
        if let pedometer = PedometerSelection.source(
            order: c.pedometer.sources.map(\.rawValue), sysfs: c.pedometer.sysfsRoot,
            deviceRoot: c.pedometer.deviceRoot,
            rate: c.pedometer.accelerometerRateHz, clock: clock)
        {
            sources.append(pedometer)
        }
        return sources
    }
}
