"""Printed scoresheets have a cube column only where the discipline plays with the
cube (issue 15): long nardy has none, short nardy with the cube has one.  The
discipline answers (``Discipline.has_cube``), and the games' rules ask it too."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from clubs.models import Discipline
from games import adapters
from tests.factories import MatchFactory
from tests.tournaments import builders
from tournaments import services
from tournaments.models import Round, TournamentState

pytestmark = pytest.mark.django_db

CUBE_HEADER = "Cube, Crawford, note"


def discipline(code: str, variant: str, preset: str, cube: bool) -> Discipline:
    # Saved as given: an old row may say "cube" for a variant without one (clean() now
    # refuses it), and the sheets must still ask the variant.
    return Discipline.objects.create(
        code=code, name=code, variant=variant, scoring_preset=preset, cube=cube
    )


def scoresheets(played: Discipline) -> str:
    federation, admin, _unused = builders.federation_with_admin()
    t = services.create_tournament(
        by=admin,
        federation=federation,
        name=f"Open {played.code}",
        discipline=played,
        format="swiss",
        rounds_planned=2,
        match_length=5,
    )
    services.set_state(t, TournamentState.REGISTRATION, by=admin)
    for player in builders.players(federation, 4):
        services.add_entry(t, player, by=admin)
    services.start_tournament(t, by=admin)
    rnd: Round = services.pair_next_round(t, by=admin)
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(admin)
    response = client.get(reverse("tournaments:print_scoresheets", args=[t.pk, rnd.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert html.count('class="scoresheet"') == 2
    return html


@pytest.mark.parametrize(
    ("variant", "preset", "cube", "shown"),
    [
        ("long", "long-masters", False, False),  # long nardy: no cube at all
        ("long", "long-masters", True, False),  # an old row saying so does not add one
        ("short", "short-standard", True, True),
        ("short", "short-standard", False, False),  # short nardy played without the cube
    ],
)
def test_the_cube_column_follows_the_discipline(
    variant: str, preset: str, cube: bool, shown: bool
) -> None:
    played = discipline(f"{variant}-{'cube' if cube else 'plain'}", variant, preset, cube)
    assert played.has_cube is shown
    html = scoresheets(played)
    assert (CUBE_HEADER in html) is shown
    # The grid keeps its note column either way: six cells a row.
    assert (
        html.count('<tr><td class="num">1</td><td></td><td></td><td></td><td></td><td></td></tr>')
        == 2
    )
    if not shown:
        assert '<th rowspan="2" class="note">Note</th>' in html


@pytest.mark.parametrize(
    ("variant", "preset", "cube"),
    [
        ("long", "long-masters", False),
        ("long", "long-masters", True),
        ("short", "short-standard", True),
        ("short", "short-standard", False),
        ("nardegammon", "long-masters", True),
    ],
)
def test_the_games_rules_ask_the_same_place(variant: str, preset: str, cube: bool) -> None:
    played = discipline(f"{variant}-{cube}", variant, preset, cube)
    match: Any = MatchFactory(discipline=played)
    assert adapters.rules_for(match).cube_enabled is played.has_cube
