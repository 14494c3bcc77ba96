"""Plakoto pins on the board: the position JSON lists them for the page to draw."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from engine.records.notation import parse_moves
from engine.rules import game as eg
from engine.rules.dice import RecordedDice
from engine.rules.variants import get_variant
from games import boardsvg, services
from games.models import Match, TurnKind
from tests.factories import DisciplineFactory, MatchFactory
from tests.games.helpers import user_of

# White starts 6-5 and runs one checker to its 13; Black leaves lone checkers on its 18 and 19.
TURNS = [
    (TurnKind.OPENING, [6, 5], ""),
    (TurnKind.PLAY, [6, 5], "24/13"),
    (TurnKind.PLAY, [6, 5], "24/18 24/19"),
]
# Black's 18 is location 6 (opposite directions: Black's q is 24 - q), White's 7.
PINNED_AT = 6


def plakoto_match() -> Match:
    plakoto = DisciplineFactory(
        code="plakoto", name="Plakoto", variant="plakoto", scoring_preset="plakoto", cube=False
    )
    match = MatchFactory(discipline=plakoto)
    for number, (kind, dice, moves) in enumerate(TURNS, start=1):
        by = user_of(match, 1 if number == 3 else 0)
        services.record_turn(match, by=by, number=number, kind=kind, dice=dice, moves=moves)
    return match


def test_locations_list_each_sides_pinned_checkers_by_location() -> None:
    variant = get_variant("plakoto")
    state = eg.set_opening(eg.new_game(eg.GameRules(variant)), 0, (6, 5))
    state = eg.play(state, parse_moves("24/13"))
    state = eg.play(eg.roll(state, RecordedDice([(6, 5)])), parse_moves("24/18 24/19"))
    state = eg.play(eg.roll(state, RecordedDice([(6, 2)])), parse_moves("13/7 24/22"))
    shown = boardsvg.locations(variant, state.position)
    assert shown["pinned"] == [[], [PINNED_AT]]
    assert shown["points"][PINNED_AT] == [1, 1]
    assert boardsvg.locations(get_variant("short"), get_variant("short").start_position())[
        "pinned"
    ] == [[], []]


@pytest.mark.django_db
def test_the_state_carries_the_pins_and_the_page_knows_the_variant_pins(client) -> None:  # type: ignore[no-untyped-def]
    match = plakoto_match()
    services.record_turn(
        match, by=user_of(match, 0), number=4, kind=TurnKind.PLAY, dice=[6, 2], moves="13/7 24/22"
    )
    data = client.get(reverse("games:state", args=[match.pk])).json()
    assert data["position"]["pinned"] == [[], [PINNED_AT]]
    assert data["position"]["points"][PINNED_AT] == [1, 1]
    page = client.get(reverse("games:board", args=[match.pk])).content.decode()
    config = re.search(r'<script id="board-config" type="application/json">(.*?)</script>', page)
    assert config is not None
    assert json.loads(config.group(1))["pinning"] is True


@pytest.mark.django_db
def test_a_play_that_pins_is_offered_as_a_plain_step(client) -> None:  # type: ignore[no-untyped-def]
    match = plakoto_match()
    client.force_login(user_of(match, 0))
    found = client.get(reverse("games:plays", args=[match.pk]), {"dice": "6,2"}).json()
    steps = [play["steps"] for play in found["plays"] if play["moves"] == "24/22 13/7"]
    # The page works the pin out itself: the step is not a hit.
    assert steps and [13, 7, False] in steps[0]
