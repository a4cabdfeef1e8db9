import Glibc
import Testing
@testable import PrefetchKit

@Suite struct DiagnosticsTests {
    static func status(_ kinds: [Diagnostics.Kind], stoppedBy signal: Int32? = nil) -> PrefetchKit.ExitStatus {
        let diagnostics = Diagnostics()
        for kind in kinds { diagnostics.report(kind) }
        if let signal { diagnostics.stopped(by: signal) }
        return diagnostics.exitStatus
    }

    @Test func theWorstKindReportedDecides() {
        #expect(Self.status([]) == .success)
        #expect(Self.status([.failure, .failure]) == .failures)
        #expect(Self.status([.failure, .usage]) == .usage)
        #expect(Self.status([.environment, .failure, .usage]) == .environment)
    }

    @Test func aStopOutranksFailuresAndAnEnvironmentErrorOutranksAStop() {
        #expect(Self.status([.failure], stoppedBy: SIGINT) == .interrupted)
        #expect(Self.status([], stoppedBy: SIGTERM) == .terminated)
        #expect(Self.status([.failure], stoppedBy: SIGHUP) == .hungUp)
        #expect(Self.status([.environment], stoppedBy: SIGINT) == .environment)
    }
}
