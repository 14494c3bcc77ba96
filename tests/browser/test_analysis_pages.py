"""An analysed match in Chromium (issue 17): the replay marks its decisions (a symbol and
a word, a colour of its own for each mark) and the match page gives both players' PR."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.urls import reverse
from django.utils.formats import number_format
from playwright.sync_api import expect

from analysis import services
from analysis.models import AnalysedDecision, MatchAnalysis
from games import exports
from games.models import Turn
from games.services.matfiles import import_mat
from tests.games.test_archive_import import World, mat

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "correct-horse-battery"  # tests.factories.UserFactory's
SYMBOLS = {"doubtful": "?!", "error": "?", "blunder": "??"}


@pytest.fixture(autouse=True)
def archive_root(settings: Any, tmp_path: Path) -> None:
    settings.ARCHIVE_ROOT = tmp_path / "archives"


def sign_in(page: Any, live_server: Any, user: Any, then: str) -> None:
    page.goto(f"{live_server.url}{reverse('clubs:login')}?next={then}")
    page.fill("input[name=username]", user.username)
    page.fill("input[name=password]", PASSWORD)
    page.click("form.stack button[type=submit]")
    page.wait_for_url(f"{live_server.url}{then}")


def test_the_replay_marks_the_moves_and_the_match_page_gives_the_pr(
    live_server: Any, page: Any
) -> None:
    world = World()
    match = import_mat(
        mat(2, ("Bob", "Mamedov Elchin"), length=3).decode(),
        by=world.admin,
        player1=world.bob,
        player2=world.elchin,
        discipline=world.discipline,
        federation=world.federation,
    )
    services.analyse(match.pk)
    analysis = MatchAnalysis.objects.get(match=match)
    worst = (
        AnalysedDecision.objects.filter(analysis=analysis, game=1, counted=True, kind="checker")
        .exclude(mark="")
        .order_by("-error")
        .first()
    )
    assert worst is not None  # the seed's first game has a marked play
    game = match.games.get(number=1)
    turn = Turn.objects.get(pk=exports.action_turn_ids(game)[worst.action])

    replay = reverse("games:replay", args=[match.pk, 1])
    sign_in(page, live_server, world.admin, replay)
    page.wait_for_selector("#board-app[data-ready]", state="attached")
    item = page.locator(f'#replay-turns li[value="{turn.number}"]')
    note = item.locator(f'.analysis-note[data-mark="{worst.mark}"][data-kind="checker"]')
    expect(note).to_be_visible()
    expect(note).to_contain_text(f"{SYMBOLS[worst.mark]} {worst.mark}")
    expect(note).to_contain_text(f"lost {number_format(worst.error, 3)}; best: {worst.best}")
    # The mark has a colour of its own, beside its symbol and word.
    marked = note.evaluate("e => getComputedStyle(e).backgroundColor")
    plain = page.locator(".analysis-note.mark-none").first
    if plain.count():
        assert marked != plain.evaluate("e => getComputedStyle(e).backgroundColor")
    assert marked not in ("rgba(0, 0, 0, 0)", "transparent")
    # Stepping to the marked turn makes it the current one on the board.
    item.locator("a[data-frame]").click()
    expect(item).to_have_class("current")

    page.goto(f"{live_server.url}{reverse('games:match', args=[match.pk])}")
    table = page.locator("#match-analysis")
    expect(table).to_contain_text("Analysed by bgsage at 1-ply.")
    for side in (1, 2):
        pr = getattr(analysis, f"pr{side}")
        row = table.locator(f'tr[data-side="{side}"]')
        expect(row.locator(".analysis-pr")).to_have_text(number_format(pr, 1))
        expect(row.locator(".analysis-errors")).to_have_text(
            str(getattr(analysis, f"errors{side}"))
        )
