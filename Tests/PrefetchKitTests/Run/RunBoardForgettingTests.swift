import Testing
@testable import PrefetchKit

/// A claim carries the uses of the board's memory of settled keys when it was made; a run compares
/// them with those taken before it read rows ahead (`Prefetcher.readAhead`): while every key settled
/// since is still remembered, a row read then answers for the claimed key.
@Suite struct RunBoardForgettingTests {
    /// A board that remembers about two settled keys of eight bytes.
    static func board() -> RunBoard {
        RunBoard(setNames: ["s"], failureLimit: 10, settledCost: 2 * (8 + 64) + 10)
    }

    static func claim(_ key: String, on board: RunBoard) throws -> KeyClaim {
        guard case .claimed(let claim) = board.ask(key, set: 0) else { throw ClaimError.told(key) }
        return claim
    }

    @Test func everySettleSinceAMarkIsRememberedWhileTheirUsesFitTheMemory() throws {
        // Given a mark taken before anything was settled
        let board = Self.board()
        let mark = board.settledUses

        // When one key is settled and another claimed
        board.settle(try Self.claim("key-0001", on: board), .cached)
        let second = try Self.claim("key-0002", on: board)

        // Then the first is remembered since the mark, and told rather than claimed again
        #expect(board.rememberedEverySettle(since: mark, before: second))
        #expect(!second.settledWereForgotten)
        guard case .told = board.ask("key-0001", set: 0) else {
            Issue.record("a key settled since the mark is told")
            return
        }
    }

    @Test func aKeySettledSinceAMarkAndForgottenIsSaid() throws {
        // Given a mark, then three keys settled one after another: the third makes the board forget the first
        let board = Self.board()
        let mark = board.settledUses
        for key in ["key-0001", "key-0002", "key-0003"] {
            board.settle(try Self.claim(key, on: board), .cached)
        }

        // When the first key is asked for again
        let again = try Self.claim("key-0001", on: board)

        // Then it is claimed again, and the claim says a key settled since the mark may be forgotten
        #expect(again.settledWereForgotten)
        #expect(!board.rememberedEverySettle(since: mark, before: again))
        // while from a mark taken after those three, nothing settled since is forgotten
        let later = board.settledUses
        board.settle(again, .cached)
        let fourth = try Self.claim("key-0004", on: board)
        #expect(board.rememberedEverySettle(since: later, before: fourth))
    }

    enum ClaimError: Error { case told(String) }
}
