import NIOCore

/// A task executor on one NIO event loop. A PostgreSQL transaction's code runs on its
/// connection's loop (`withTaskExecutorPreference`), so a statement is written from the loop
/// without a hand-over and its answer resumes the code there, where otherwise each statement woke
/// the loop's thread and then a thread of Swift's pool: at 10,000 members, 41 % of the store's
/// CPU on the progress page was the kernel switching threads. The code between statements is
/// short (decoding rows), and the loop serves only its connections meanwhile.
final class EventLoopExecutor: TaskExecutor {
    let loop: any EventLoop

    init(_ loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
