"""Single elimination: positions, byes, a bracket as a tree, results advancing players."""

from __future__ import annotations

import pytest

from tests.tournaments.core.helpers import entries, run_bracket
from tournaments.core.bracket import BYE, Bracket
from tournaments.core.elimination import (
    bracket_size,
    elimination_matches,
    first_round,
    seed_positions,
    single_elimination,
)
from tournaments.core.errors import BracketError, ConfigError
from tournaments.core.types import Entry, MatchResult

FIRST_ROUNDS = {
    5: [(1, None), (4, 5), (2, None), (3, None)],
    12: [(1, None), (8, 9), (4, None), (5, 12), (2, None), (7, 10), (3, None), (6, 11)],
    24: [
        (1, None), (16, 17), (8, None), (9, 24), (4, None), (13, 20), (5, None), (12, 21),
        (2, None), (15, 18), (7, None), (10, 23), (3, None), (14, 19), (6, None), (11, 22),
    ],
}  # fmt: skip


@pytest.mark.parametrize("n", [5, 12, 24])
def test_first_round_pairings_and_byes_by_seed(n: int) -> None:
    assert first_round(single_elimination(entries(n))) == FIRST_ROUNDS[n]


def test_thirty_three_players() -> None:
    rounds = first_round(single_elimination(entries(33)))
    assert len(rounds) == 32  # a bracket of 64
    played = [m for m in rounds if None not in m]
    assert played == [(32, 33)]  # the only first-round match
    assert sorted(a or 0 for a, b in rounds if b is None) == list(
        range(1, 32)
    )  # 31 byes, to seeds 1-31


def test_positions() -> None:
    assert seed_positions(2) == [1, 2]
    assert seed_positions(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert [bracket_size(n) for n in (1, 2, 3, 5, 8, 9, 33)] == [2, 2, 4, 8, 8, 16, 64]
    with pytest.raises(ConfigError):
        seed_positions(12)


@pytest.mark.parametrize("size", [2, 4, 8, 16, 32, 64, 128])
def test_top_seeds_meet_as_late_as_possible(size: int) -> None:
    slot = {s: k for k, s in enumerate(seed_positions(size))}
    rounds = size.bit_length() - 1

    def meeting(a: int, b: int) -> int:
        return (slot[a] ^ slot[b]).bit_length()

    assert meeting(1, 2) == rounds  # only in the final
    for k in range(1, rounds):
        # The top 2^k seeds are in different sections until the last k rounds.
        top = range(1, 2**k + 1)
        assert min(meeting(a, b) for a in top for b in top if a < b) == rounds - k + 1
    assert all(
        s + t == size + 1
        for s, t in zip(seed_positions(size)[::2], seed_positions(size)[1::2], strict=True)
    )


@pytest.mark.parametrize("n", range(2, 70))
def test_byes_go_to_the_top_seeds(n: int) -> None:
    rounds = first_round(single_elimination(entries(n)))
    byes = sorted(a or 0 for a, b in rounds if b is None)
    assert byes == list(range(1, bracket_size(n) - n + 1))


def test_the_tree_and_advancing() -> None:
    b = single_elimination(entries(5))
    m = b.matches
    assert [mid for mid in m] == ["M1-1", "M1-2", "M1-3", "M1-4", "M2-1", "M2-2", "M3-1"]
    assert m["M1-2"].winner_to == ("M2-1", 1) and m["M2-1"].winner_to == ("M3-1", 0)
    assert m["M3-1"].winner_to is None and m["M1-1"].loser_to is None
    assert (m["M2-1"].seats[0].kind, m["M2-1"].seats[0].match) == ("winner", "M1-1")
    # Byes resolve by themselves: 1, 2 and 3 are already in round 2.
    assert b.players("M2-1") == (1, None)
    assert b.players("M2-2") == (2, 3)
    assert b.status("M1-1") == "bye" and b.loser("M1-1") is BYE
    assert b.ready() == ["M1-2", "M2-2"]
    b.record("M1-2", 5)
    assert b.players("M2-1") == (1, 5)
    with pytest.raises(BracketError) as err:
        b.record("M3-1", 1)
    assert err.value.code == "match_not_ready"
    with pytest.raises(BracketError) as err:
        b.record("M2-1", 4)
    assert err.value.code == "not_in_match"
    with pytest.raises(BracketError) as err:
        b.record("M1-2", 4)
    assert err.value.code == "already_decided"
    with pytest.raises(BracketError) as err:
        b.record("M9-9", 4)
    assert err.value.code == "unknown_match"
    # A correction before anything depends on it.
    b.record("M1-2", 4, replace=True)
    assert b.players("M2-1") == (1, 4)
    assert b.apply(MatchResult(2, 4, 1, 4, 7, 5)) == "M2-1"
    with pytest.raises(BracketError) as err:
        b.undo("M1-2")
    assert err.value.code == "downstream_decided"
    assert b.apply(MatchResult(2, 2, 3, 3, 7, 6, forfeit=False)) == "M2-2"
    with pytest.raises(BracketError) as err:
        b.apply(MatchResult(3, 1, 2, 1))
    assert err.value.code == "no_such_pairing"
    b.apply(MatchResult(3, 3, 4, 3, forfeit=True))
    assert b.forfeited("M3-1")
    assert b.is_complete() and b.champion() == 3
    assert b.placements() == [("1", [3]), ("2", [4]), ("3-4", [1, 2]), ("5", [5])]


def test_undo_reopens_a_match() -> None:
    b = single_elimination(entries(4))
    b.record("M1-1", 4)
    assert b.players("M2-1") == (4, None)
    b.undo("M1-1")
    assert b.players("M2-1") == (None, None) and b.status("M1-1") == "ready"


def test_seeding_by_rating_by_hand_or_by_order() -> None:
    field = [
        Entry(1, rating=1500),
        Entry(2, rating=1800, seed=2),
        Entry(3, rating=1700),
        Entry(4, rating=1600, seed=1),
    ]
    by_hand = single_elimination(field)  # seeds 4, 2 then by rating: 3, 1
    assert by_hand.players("M1-1") == (4, 1) and by_hand.players("M1-2") == (2, 3)
    by_rating = single_elimination(field, seed_by="rating")  # 2, 3, 4, 1
    assert by_rating.players("M1-1") == (2, 1) and by_rating.players("M1-2") == (3, 4)
    ordered = single_elimination(field, order=[3, 1, 2, 4])
    assert ordered.players("M1-1") == (3, 4)
    withdrawn = single_elimination([*field[:3], Entry(4, withdrawn=True)])
    assert len(withdrawn.matches) == 3
    with pytest.raises(ConfigError):
        elimination_matches([1])
    with pytest.raises(ConfigError):
        elimination_matches([1, 1])


@pytest.mark.parametrize("n", [5, 12, 24, 33])
def test_a_full_event_has_one_champion_and_full_placements(n: int) -> None:
    b = single_elimination(entries(n))
    met = run_bracket(b, seed=n)
    assert len(met) == n - 1  # every match eliminates one player
    champion = b.champion()
    assert champion is not None
    places = b.placements()
    assert places[0] == ("1", [champion])
    assert sorted(p for _, group in places for p in group) == list(range(1, n + 1))
    assert [len(g) for _, g in places][:3] == [1, 1, 2]


def test_a_bracket_rejects_bad_structures() -> None:
    matches = elimination_matches([1, 2, 3, 4])
    with pytest.raises(ConfigError):
        Bracket([*matches, matches[0]])
