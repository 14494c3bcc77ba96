"""Rounds of a flight fed from another are named by the matches they play.

A progressive consolation of 64 players takes the main flight's losers in its
rounds 2, 4 and 6: it plays 16, 16, 8, 8, 4, 4, 2 and 1 matches.  Counting the
rounds left to its final named its first round "1/128 final"; the round of 16
matches that leads to the round of 8 is the "1/16 final", the round before it
(as many matches) keeps its number.  A plain bracket keeps its names.
"""

from __future__ import annotations

import pytest

from tests.tournaments import builders
from tournaments.formats import registry
from tournaments.models import Round

pytestmark = pytest.mark.django_db


def test_a_progressive_consolation_names_its_rounds_by_their_matches() -> None:
    t = builders.tournament(
        64, "main_consolation", progressive_consolation=True, last_chance=True, match_length=1
    )
    builders.run_all_flights(t, t.created_by, ["main", "consolation", "last_chance"])
    fmt = registry.for_tournament(t)
    titles: dict[str, list[str]] = {}
    for rnd in Round.objects.filter(tournament=t).order_by("flight", "number"):
        title = fmt.round_title(t, rnd.flight, rnd.number).split(" · ")[0]
        titles.setdefault(rnd.flight, []).append(title)
    assert titles == {
        "main": ["1/32 final", "1/16 final", "1/8 final", "Quarter-final", "Semi-final", "Final"],
        "consolation": [
            "Round 1",
            "1/16 final",
            "Round 3",
            "1/8 final",
            "Round 5",
            "Quarter-final",
            "Semi-final",
            "Final",
        ],
        "last_chance": ["1/16 final", "1/8 final", "Quarter-final", "Semi-final", "Final"],
    }


def test_a_bracket_with_byes_keeps_its_names() -> None:
    t = builders.tournament(12, "single_elimination")
    builders.run_flight_rounds(t, t.created_by)
    fmt = registry.for_tournament(t)
    numbers = Round.objects.filter(tournament=t).order_by("number").values_list("number", flat=True)
    assert [fmt.round_title(t, "main", n) for n in numbers] == [
        "1/8 final",
        "Quarter-final",
        "Semi-final",
        "Final",
    ]
