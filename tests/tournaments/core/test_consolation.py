"""Main flight with plain or progressive consolation and a last-chance flight."""

from __future__ import annotations

import pytest

from tests.tournaments.core.helpers import entries, run_bracket
from tournaments.core.bracket import BYE, Bracket, Seat
from tournaments.core.consolation import main_with_consolation
from tournaments.core.errors import ConfigError


def seats(b: Bracket, mid: str) -> list[tuple[str, str | None]]:
    return [(s.kind, s.match) for s in b.matches[mid].seats]


def flight(b: Bracket, name: str) -> list[str]:
    return [mid for mid, m in b.matches.items() if m.flight == name]


def test_plain_consolation_takes_the_first_round_losers() -> None:
    b = main_with_consolation(entries(16))
    assert flight(b, "consolation") == ["C1-1", "C1-2", "C1-3", "C1-4", "C2-1", "C2-2", "C3-1"]
    # Losers of neighbouring first-round matches meet (they have each met only their winner).
    assert seats(b, "C1-1") == [("loser", "M1-1"), ("loser", "M1-2")]
    assert seats(b, "C1-4") == [("loser", "M1-7"), ("loser", "M1-8")]
    assert b.matches["M1-3"].loser_to == ("C1-2", 0)
    assert b.matches["M2-1"].loser_to is None


def test_progressive_consolation_gives_later_losers_byes_into_later_rounds() -> None:
    b = main_with_consolation(entries(16), consolation_rounds=2)
    # Round 1: first-round losers; round 2: each survivor meets a second-round
    # loser of the other half of the draw (reversed order); then 4 -> 2 -> 1.
    assert seats(b, "C1-1") == [("loser", "M1-1"), ("loser", "M1-2")]
    assert [seats(b, f"C2-{k}") for k in range(1, 5)] == [
        [("winner", "C1-1"), ("loser", "M2-4")],
        [("winner", "C1-2"), ("loser", "M2-3")],
        [("winner", "C1-3"), ("loser", "M2-2")],
        [("winner", "C1-4"), ("loser", "M2-1")],
    ]
    assert flight(b, "consolation")[-3:] == ["C3-1", "C3-2", "C4-1"]
    deeper = main_with_consolation(entries(16), consolation_rounds=3)
    # Third-round losers come in after the survivors are halved again.
    assert seats(deeper, "C3-1") == [("winner", "C2-1"), ("winner", "C2-2")]
    assert {s.match for s in deeper.matches["C4-1"].seats} | {
        s.match for s in deeper.matches["C4-2"].seats
    } >= {
        "M3-1",
        "M3-2",
    }


def test_byes_in_the_main_become_byes_in_the_consolation() -> None:
    b = main_with_consolation(entries(12))  # 4 byes: seeds 1-4
    assert b.loser("M1-1") is BYE
    assert b.players("C1-1") == (BYE, None)
    b.record("M1-2", 8)  # 8 beat 9
    assert b.players("C1-1") == (BYE, 9)
    assert b.status("C1-1") == "bye" and b.winner("C1-1") == 9


def test_a_dropping_player_never_meets_someone_he_has_already_met_first() -> None:
    for n in (8, 16, 32, 64):
        for seed in range(40):
            b = main_with_consolation(entries(n), consolation_rounds=2, last_chance_rounds=1)
            history: list[frozenset[int]] = []
            first_meetings = []
            while not b.is_complete():
                for mid in b.ready():
                    a, c = b.players(mid)
                    assert isinstance(a, int) and isinstance(c, int)
                    pair = frozenset((a, c))
                    m = b.matches[mid]
                    if m.flight == "consolation" and m.round == 2:
                        first_meetings.append(pair in history)
                    history.append(pair)
                    b.record(mid, a if (seed * 7 + len(history)) % 3 else c)
            assert not any(first_meetings), (n, seed)


@pytest.mark.parametrize(
    ("n", "rounds", "last_chance"),
    [(8, 1, 1), (12, 2, 2), (16, 2, 2), (24, 3, 2), (32, 3, 3), (13, 1, 0)],
)
def test_full_events_in_every_flight(n: int, rounds: int, last_chance: int) -> None:
    b = main_with_consolation(entries(n), consolation_rounds=rounds, last_chance_rounds=last_chance)
    run_bracket(b, seed=n + rounds)
    assert b.is_complete()
    flights = ["main", "consolation"] + (["last_chance"] if last_chance else [])
    assert b.flights() == flights
    main_places = b.placements("main")
    assert sorted(p for _, g in main_places for p in g) == list(range(1, n + 1))
    for name in flights[1:]:
        champion = b.champion(name)
        assert champion is not None
        players = {p for mid in flight(b, name) for p in b.players(mid) if isinstance(p, int)}
        places = b.placements(name)
        assert places[0] == ("1", [champion])
        assert {p for _, g in places for p in g} == players
    # Nobody plays two flights at once: a consolation player lost in the main.
    main_losers = {b.loser(mid) for mid in flight(b, "main")}
    assert {
        p for mid in flight(b, "consolation") for p in b.players(mid) if isinstance(p, int)
    } <= main_losers


def test_bad_settings() -> None:
    with pytest.raises(ConfigError):
        main_with_consolation(entries(8), consolation_rounds=3)  # the final's loser cannot drop
    with pytest.raises(ConfigError):
        main_with_consolation(entries(8), consolation_rounds=0)
    with pytest.raises(ConfigError):
        main_with_consolation(entries(8), last_chance_rounds=5)
    with pytest.raises(ConfigError) as err:
        main_with_consolation(entries(5))  # one real first-round loser: no consolation
    assert err.value.code == "too_few_entries"
    with pytest.raises(ConfigError) as err:
        main_with_consolation(
            entries(12), consolation_rounds=2, last_chance_rounds=1
        )  # C1 is all byes
    assert err.value.code == "too_few_entries"
    assert Seat.bye().kind == "bye"
