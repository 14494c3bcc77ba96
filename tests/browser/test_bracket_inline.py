"""The director enters a knock-out's results in the console's bracket with the
keyboard only (issue 15): two scores in a match's box, Enter, and the page comes back
with the focus in the next open box of the bracket.  One page load per result; the
score boxes lie over the match they belong to."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games.models import ResultStatus
from tests.tournaments import builders
from tournaments import services
from tournaments.models import Pairing

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "correct-horse-battery"  # tests.factories.UserFactory's


def focused_box(page) -> str:  # type: ignore[no-untyped-def]
    """The table of the bracket box holding the focused element, and the element's name."""
    return page.evaluate(
        "() => { const e = document.activeElement;"
        " const box = e && e.closest('form.box-result');"
        " return (box ? box.dataset.table : '') + '/' + (e ? e.getAttribute('name') : ''); }"
    )


def inside(inner: dict, outer: dict) -> bool:  # type: ignore[type-arg]
    return (
        inner["x"] >= outer["x"] - 0.5
        and inner["y"] >= outer["y"] - 0.5
        and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + 0.5
        and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + 0.5
    )


def test_a_knockout_typed_in_the_bracket_one_page_load_each(live_server, page) -> None:  # type: ignore[no-untyped-def]
    federation, admin, _discipline = builders.federation_with_admin()
    t = builders.tournament(8, "single_elimination", federation=federation, by=admin)
    rnd = services.pair_next_round(t, by=admin)
    services.start_round(rnd, by=admin)
    url = live_server.url
    console = reverse("tournaments:console", args=[t.pk])

    page.goto(f"{url}{reverse('clubs:login')}?next={console}")
    page.fill("input[name=username]", admin.username)
    page.fill("input[name=password]", PASSWORD)
    with page.expect_navigation():
        page.locator("form.stack button[type=submit]").click()
    # The console opened on the first box (as a result of the box before it would leave it).
    page.goto(f"{url}{console}?round={rnd.pk}&next=1&at=bracket")
    assert focused_box(page) == "1/score1"

    # Each box's score fields lie over its match in the drawing, at 1280 px wide.
    for form in page.locator("form.box-result").all():
        slot = form.get_attribute("data-slot")
        match = page.locator(f'g.match[data-slot="{slot}"] rect.box').bounding_box()
        for name in ("score1", "score2"):
            field = form.locator(f"input[name={name}]").bounding_box()
            assert field is not None and match is not None
            assert inside(field, match), (slot, name, field, match)
            assert field["width"] >= 26 and field["height"] >= 17  # legible
    # The page itself does not grow sideways: the bracket scrolls in its own box.
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 1280

    loads: list[str] = []
    page.on("load", lambda: loads.append(page.url))
    navigations: list[str] = []
    page.on(
        "framenavigated",
        lambda frame: navigations.append(frame.url) if frame == page.main_frame else None,
    )
    scores = {1: ("3", "1"), 2: ("2", "3"), 3: ("3", "0")}
    for number, (score1, score2) in scores.items():
        with page.expect_navigation():
            page.keyboard.type(score1)
            page.keyboard.press("Tab")
            page.keyboard.type(score2)
            page.keyboard.press("Enter")
        page.wait_for_load_state("load")
        assert page.url.endswith(f"?round={rnd.pk}&next={number + 1}&at=bracket")
        assert focused_box(page) == f"{number + 1}/score1"
        said = page.locator("ul.messages li").all_inner_texts()
        assert said == [f"Table {number}: {score1}–{score2} is official."]
    # The last one by forfeit, from the keyboard too: Tab past the scores and the
    # Enter button (they show once the box has the focus) to "2 forfeits".
    assert page.locator("form.box-result").count() == 1
    with page.expect_navigation():
        for _ in range(4):
            page.keyboard.press("Tab")
        assert focused_box(page) == "4/action"
        assert page.evaluate("() => document.activeElement.value") == "forfeit2"
        page.keyboard.press("Enter")
    page.wait_for_load_state("load")
    assert page.url.endswith(f"{console}#bracket-main")
    assert page.locator("form.box-result").count() == 0
    # One page load (the post's answer) per result, and nothing else.
    assert len(loads) == len(navigations) == len(scores) + 1

    for number, (score1, score2) in scores.items():
        match = Pairing.objects.select_related("match").get(round=rnd, table=number).match
        assert match is not None
        assert (match.result_status, match.score1, match.score2) == (
            ResultStatus.CONFIRMED,
            int(score1),
            int(score2),
        )
    assert Pairing.objects.get(round=rnd, table=4).forfeit_winner == 1
    # The winners' scores now show in the drawing, the semi-finals wait to be paired.
    first = Pairing.objects.get(round=rnd, table=1)
    drawn = page.locator(f'g.match[data-slot="{first.slot}"] text.score').all_text_contents()
    assert drawn == ["3", "1"]
