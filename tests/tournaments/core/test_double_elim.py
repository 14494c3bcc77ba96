"""Double elimination with a grand-final reset."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.tournaments.core.helpers import entries, run_bracket
from tournaments.core.bracket import Bracket
from tournaments.core.double_elim import double_elimination


def sections(b: Bracket) -> Counter[str]:
    return Counter(m.section for m in b.matches.values())


def test_structure_for_a_club_night_of_six() -> None:
    b = double_elimination(entries(6))
    assert sections(b) == Counter({"W": 7, "L": 6, "GF": 2})
    assert b.winner("W1-1") == 1 and b.winner("W1-3") == 2  # byes to seeds 1 and 2
    assert [mid for mid, m in b.matches.items() if m.section == "L"] == [
        "L1-1",
        "L1-2",
        "L2-1",
        "L2-2",
        "L3-1",
        "L4-1",
    ]
    # Second-round losers meet the first-round survivors of the other half.
    assert b.matches["W2-1"].loser_to == ("L2-2", 1) and b.matches["W2-2"].loser_to == ("L2-1", 1)
    # The loser of the winners' final drops into the losers' final.
    assert b.matches["W3-1"].loser_to == ("L4-1", 1)
    assert b.matches["L4-1"].winner_to == ("GF1", 1) and b.matches["W3-1"].winner_to == ("GF1", 0)
    assert b.matches["GF2"].reset_of == "GF1"


def play(b: Bracket, mid: str, winner_seat: int) -> None:
    players = b.players(mid)
    winner = players[winner_seat]
    assert isinstance(winner, int)
    b.record(mid, winner)


def finish_until_grand_final(b: Bracket) -> None:
    while b.status("GF1") != "ready":
        for mid in b.ready():
            play(b, mid, 0)


def test_reset_is_played_only_when_the_losers_bracket_champion_wins() -> None:
    b = double_elimination(entries(4))
    finish_until_grand_final(b)
    wb, lb = b.players("GF1")
    assert b.status("GF2") == "pending"
    play(b, "GF1", 1)  # the losers'-bracket champion wins: a reset
    assert b.status("GF2") == "ready" and b.players("GF2") == (wb, lb)
    assert b.champion() is None
    play(b, "GF2", 0)
    assert b.champion() == wb and b.is_complete()

    b = double_elimination(entries(4))
    finish_until_grand_final(b)
    wb, lb = b.players("GF1")
    play(b, "GF1", 0)  # the winners'-bracket champion wins: no reset
    assert b.status("GF2") == "void" and b.ready() == []
    assert b.is_complete() and b.champion() == wb
    assert b.placements()[:2] == [("1", [wb]), ("2", [lb])]

    b = double_elimination(entries(4), grand_final_reset=False)
    finish_until_grand_final(b)
    wb, lb = b.players("GF1")
    play(b, "GF1", 1)
    assert b.is_complete() and b.champion() == lb


@pytest.mark.parametrize("n", [2, 3, 6, 8, 13, 16, 32])
def test_full_events(n: int) -> None:
    for seed in range(5):
        b = double_elimination(entries(n))
        met = run_bracket(b, seed)
        champion = b.champion()
        assert champion is not None and b.is_complete()
        losses: Counter[int] = Counter()
        for mid in b.matches:
            loser = b.loser(mid)
            if b.status(mid) == "decided" and isinstance(loser, int):
                losses[loser] += 1
        assert losses[champion] <= 1
        assert all(losses[p] == 2 for p in range(1, n + 1) if p != champion), (
            "out after the second loss"
        )
        places = b.placements()
        assert places[0] == ("1", [champion])
        assert sorted(p for _, g in places for p in g) == list(range(1, n + 1))
        if n >= 4:
            assert [label for label, _ in places][:3] == ["1", "2", "3"]
        assert len(met) in (2 * n - 2, 2 * n - 1)  # with or without the reset


def test_the_first_drops_into_the_losers_bracket_are_not_rematches() -> None:
    for n in (8, 16, 32):
        for seed in range(30):
            b = double_elimination(entries(n))
            history: list[frozenset[int]] = []
            while not b.is_complete():
                for mid in b.ready():
                    a, c = b.players(mid)
                    assert isinstance(a, int) and isinstance(c, int)
                    pair = frozenset((a, c))
                    if b.matches[mid].section == "L" and b.matches[mid].round == 2:
                        assert pair not in history
                    history.append(pair)
                    b.record(mid, a if (seed + len(history)) % 3 else c)
