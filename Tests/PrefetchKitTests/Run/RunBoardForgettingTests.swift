import Testing
@testable import PrefetchKit

/// A claim carries how many settled keys the board had forgotten when it was made, the count a run
/// compares with the one taken before reading rows ahead (`Prefetcher.readAhead`).
@Suite struct RunBoardForgettingTests {
    @Test func aClaimCountsTheSettledKeysForgottenBeforeIt() throws {
        // Given a board that remembers about two settled keys of this size
        let board = RunBoard(setNames: ["s"], failureLimit: 10, settledCost: 2 * (8 + 64) + 10)
        func claim(_ key: String) throws -> KeyClaim {
            guard case .claimed(let claim) = board.ask(key, set: 0) else { throw ClaimError.told(key) }
            return claim
        }

        // When keys are claimed and settled one after another
        let first = try claim("key-0001")
        #expect(first.forgotten == 0)
        #expect(!first.settledWereForgotten)
        board.settle(first, .cached)
        board.settle(try claim("key-0002"), .cached)
        let third = try claim("key-0003")
        #expect(third.forgotten == 0)
        #expect(board.forgottenCount == 0)
        board.settle(third, .cached)

        // Then the third one settled made the board forget the first: a later claim says so, and the
        // first key is claimed again rather than told
        #expect(board.forgottenCount == 1)
        let again = try claim("key-0001")
        #expect(again.forgotten == 1)
        #expect(again.settledWereForgotten)
        guard case .told = board.ask("key-0003", set: 0) else {
            Issue.record("a key settled since is still told")
            return
        }
    }

    enum ClaimError: Error { case told(String) }
}
