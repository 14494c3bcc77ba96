"""The director enters a round's results from the console with the keyboard only
(issue 15): two scores, Enter, and the page comes back with the focus in the next
table's first box.  One page load per result."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games.models import ResultStatus
from tests.tournaments import builders
from tournaments import services
from tournaments.models import Pairing

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "correct-horse-battery"  # tests.factories.UserFactory's


_FOCUSED_ROW = (
    "() => { const e = document.activeElement;"
    " const row = e && e.closest('tr');"
    " return (row ? row.id : '') + '/' + (e ? e.getAttribute('name') : ''); }"
)


def focused_row(page, expected: str | None = None) -> str:  # type: ignore[no-untyped-def]
    """The id of the table row holding the focused element, and the element's
    name; with ``expected``, once focus is there (or Playwright's timeout):
    the browser applies ``autofocus`` at its next rendering step, which on a
    busy machine can come after the load event."""
    if expected is not None:
        page.wait_for_function(f"() => ({_FOCUSED_ROW})() === {expected!r}")
    return str(page.evaluate(_FOCUSED_ROW))


def test_results_typed_with_the_keyboard_one_page_load_each(live_server, page) -> None:  # type: ignore[no-untyped-def]
    federation, admin, _discipline = builders.federation_with_admin()
    t = builders.tournament(8, "swiss", federation=federation, by=admin, rounds_planned=3)
    rnd = services.pair_next_round(t, by=admin)
    services.start_round(rnd, by=admin)
    url = live_server.url
    console = reverse("tournaments:console", args=[t.pk])

    page.goto(f"{url}{reverse('clubs:login')}?next={console}")
    page.fill("input[name=username]", admin.username)
    page.fill("input[name=password]", PASSWORD)
    with page.expect_navigation():
        page.locator("form.stack button[type=submit]").click()
    # The console opened on table 1 (as a result of table 0 would leave it).
    page.goto(f"{url}{console}?round={rnd.pk}&next=1")
    assert focused_row(page, f"table-{rnd.pk}-1/score1") == f"table-{rnd.pk}-1/score1"

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
        assert page.url.endswith(f"?round={rnd.pk}&next={number + 1}")
        want = f"table-{rnd.pk}-{number + 1}/score1"
        assert focused_row(page, want) == want
        said = page.locator("ul.messages li").all_inner_texts()
        assert said == [f"Table {number}: {score1}–{score2} is official."]
    # One page load (the post's answer) per result, and nothing else.
    assert len(loads) == len(navigations) == len(scores)

    for number, (score1, score2) in scores.items():
        match = Pairing.objects.select_related("match").get(round=rnd, table=number).match
        assert match is not None
        assert (match.result_status, match.score1, match.score2) == (
            ResultStatus.CONFIRMED,
            int(score1),
            int(score2),
        )
