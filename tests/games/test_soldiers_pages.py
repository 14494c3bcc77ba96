"""Soldiers (RULES.md §3.1) on the pages: the class legend wherever a Soldiers match
is shown (board, replay, match page, printed scoresheet), the board's chooser and
its messages, and the rules page, in English and Russian.  Other variants' pages
have none of it (the board itself is checked in Chromium: tests/browser)."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client
from django.urls import reverse

from games import services
from games.models import Match, TurnKind
from games.templatetags.soldiers import checker_icon, is_soldiers, legend_rows
from tests.factories import DisciplineFactory, MatchFactory
from tests.games.helpers import user_of

pytestmark = pytest.mark.django_db

LEGEND = 'id="class-legend"'
STYLES = "games/classes.css"


def soldiers_match() -> Match:
    soldiers = DisciplineFactory(
        code="soldiers", name="Soldiers", variant="soldiers", scoring_preset="short-standard"
    )
    match = MatchFactory(discipline=soldiers, length=1)
    services.record_turn(match, by=user_of(match, 0), number=1, kind=TurnKind.OPENING, dice=[6, 1])
    services.record_turn(
        match, by=user_of(match, 0), number=2, kind=TurnKind.PLAY, dice=[6, 1], moves="G13/7 8/7"
    )
    return match


def page(client: Client, name: str, *args: object) -> str:
    response = client.get(reverse(name, args=args))
    assert response.status_code == 200
    return response.content.decode()


def script_json(html: str, name: str) -> dict:  # type: ignore[type-arg]
    found = re.search(rf'<script id="{name}" type="application/json">(.*?)</script>', html)
    assert found is not None
    return json.loads(found.group(1))


def test_the_board_of_a_soldiers_match_has_the_legend_and_the_chooser(client) -> None:  # type: ignore[no-untyped-def]
    match = soldiers_match()
    client.force_login(user_of(match, 1))
    html = page(client, "games:board", match.pk)
    assert LEGEND in html and STYLES in html
    assert 'id="class-chooser"' in html
    assert html.count("<tr data-class=") == 7  # six classes and the pinned checker
    assert reverse("games:rules_soldiers") in html
    messages = script_json(html, "board-messages")
    assert messages["class_names"] == {
        "K": "general",
        "G": "guard",
        "D": "druid",
        "E": "wounded even",
        "O": "wounded odd",
        "P": "pawn",
    }
    assert messages["choose_class"] == "Which checker moves from point %(point)s?"
    # The state the board draws carries the classes; the legal plays their letters.
    state = script_json(html, "board-state")
    assert state["position"]["classes"][12][0] == ["P", "P", "P", "P"]  # White's 13
    assert state["turns"][-1]["text"] == "6-1: G13/7 8/7"


def test_replay_and_match_page_show_the_legend_and_the_class_notation(client) -> None:  # type: ignore[no-untyped-def]
    match = soldiers_match()
    client.force_login(user_of(match, 0))
    replay = page(client, "games:replay", match.pk, 1)
    assert LEGEND in replay and STYLES in replay
    frames = script_json(replay, "replay-frames")
    assert "G" in frames[-1]["position"]["classes"][6][0]  # White's 7: the guard made a point
    detail = page(client, "games:match", match.pk)
    assert LEGEND in detail and STYLES in detail
    assert "<td>G13/7 8/7</td>" in detail
    # The project's own record is offered; the formats that cannot hold classes are not.
    assert f'href="/matches/{match.pk}/match.json"' in detail
    assert "match.mat" not in detail and "match.sgf" not in detail


def test_other_variants_pages_have_no_legend(client) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory(length=1)
    services.record_turn(match, by=user_of(match, 0), number=1, kind=TurnKind.OPENING, dice=[6, 1])
    client.force_login(user_of(match, 0))
    for html in (
        page(client, "games:board", match.pk),
        page(client, "games:replay", match.pk, 1),
        page(client, "games:match", match.pk),
    ):
        assert LEGEND not in html and STYLES not in html and "class-chooser" not in html


def test_the_rules_page_explains_soldiers_in_english_and_russian() -> None:
    english = page(Client(HTTP_ACCEPT_LANGUAGE="en"), "games:rules_soldiers")
    assert "<h1>Soldiers: the rules</h1>" in english
    assert "pins it" in english and "<code>D8/5*</code>" in english
    assert english.count("<tr data-class=") == 7
    assert "The rules of Soldiers" not in english  # no link to itself
    russian = page(Client(HTTP_ACCEPT_LANGUAGE="ru"), "games:rules_soldiers")
    assert "<h1>«Солдаты»: правила</h1>" in russian
    for words in ("прижимает", "выбрасывании", "марс или кокс", "Генерал", "гвардия"):
        assert words in russian
    assert "Ходит только на чётный кубик" in russian  # the legend's rules translated


def test_each_class_is_drawn_with_a_shape_of_its_own() -> None:
    icons = [checker_icon(letter) for letter in "KGDEOP"]
    assert len(set(icons)) == 6
    shapes = [re.findall(r"<(circle|rect|polygon)", icon)[1:] for icon in icons]
    assert shapes == [["circle"], ["rect"], ["polygon"], ["polygon"], ["polygon"], []]
    corners = [re.findall(r'points="([^"]*)"', icon)[0].count(",") for icon in icons[2:5]]
    assert corners == [4, 6, 3]  # diamond, hexagon, triangle
    assert [row["letter"] for row in legend_rows()] == list("KGDEOP")
    # Pawns carry no letter; pinned checkers a red rim.
    assert "<text" not in icons[5] and "#c62828" in checker_icon("P", pinned=True)
    assert is_soldiers("soldiers") and not is_soldiers("short")


def test_soldiers_scoresheets_carry_a_compact_legend_on_each_sheet() -> None:
    from tests.tournaments.test_scoresheet_cube import discipline, scoresheets

    sheets = scoresheets(discipline("soldiers", "soldiers", "short-standard", True))
    assert sheets.count('class="class-legend compact"') == 2
    assert STYLES in sheets and "G13/7" in sheets
    assert 'id="class-legend"' not in sheets  # printed once per sheet: no repeated ids
    plain = scoresheets(discipline("short-cube", "short", "short-standard", True))
    assert "class-legend" not in plain and STYLES not in plain
