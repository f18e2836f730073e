import ServiceLifecycle

extension ScanEngine: Service {
    /// Runs the engine as a swift-service-lifecycle `Service`: starts it (camera and scanning), and on graceful
    /// shutdown (SIGTERM through a `ServiceGroup`) or task cancellation stops it — streaming stops, buffers are
    /// released, and pending events are delivered before the final ``ScanEvent/stopped(_:)`` (events that did not
    /// fit the delivery queue are counted in ``ScanStatistics/eventsDropped``). Returns once the engine has finished,
    /// also when its source ended or failed for good.
    ///
    /// - Throws: the source's error when it cannot start.
    public func run() async throws {
        try start()
        await withGracefulShutdownHandler {
            await withTaskCancellationHandler {
                await finished()
            } onCancel: {
                stop()
            }
        } onGracefulShutdown: {
            self.stop()
        }
    }
}
