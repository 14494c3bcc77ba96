"""A result reported, disputed and decided by the arbiter, in a real browser.

Player 1 reports 5-3 in a 5-point match on the match page, player 2 disputes
it with a reason, the arbiter (an admin of the match's federation) sets 5-2
with a reason on the disputes page; the match page then shows the confirmed
5-2 and every version, and the database agrees.  Each person signs in through
/accounts/login/ in their own browser context.
"""

from __future__ import annotations

import pytest

from clubs.models import Role
from games.models import ReportSource, ReportStatus, ResultStatus
from tests.factories import MatchFactory, UserFactory, grant

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "correct-horse-battery"  # tests.factories.UserFactory's


def signed_in(browser, live_server, user, lands_on="/accounts/"):  # type: ignore[no-untyped-def]
    context = browser.new_context(locale="en-US", viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto(live_server.url + "/accounts/login/")
    page.fill("input[name=username]", user.username)
    page.fill("input[name=password]", PASSWORD)
    with page.expect_navigation():
        page.click("form.stack button[type=submit]")
    assert page.url == live_server.url + lands_on
    return page


def test_report_dispute_and_arbiter_decision(live_server, browser) -> None:
    match = MatchFactory(recorded=False, length=5)
    arbiter = UserFactory()
    grant(arbiter, Role.FEDERATION_ADMIN, match.federation)
    match_url = f"{live_server.url}/matches/{match.pk}/"

    # Player 1 reports 5-3.
    first = signed_in(browser, live_server, match.player1.user)
    first.goto(match_url)
    first.fill("#report-form input[name=score1]", "5")
    first.fill("#report-form input[name=score2]", "3")
    with first.expect_navigation():
        first.click("#report-form button[type=submit]")
    assert "5–3" in first.locator("#open-report").inner_text()
    first.context.close()

    # Player 2 disputes it, with a reason.
    second = signed_in(browser, live_server, match.player2.user)
    second.goto(match_url)
    assert "Confirm or dispute by" in second.locator("#open-report").inner_text()
    second.fill("#dispute-form textarea[name=reason]", "The last game was a single: 5-2")
    with second.expect_navigation():
        second.click("#dispute-form button[type=submit]")
    assert "disputed" in second.locator("#open-report").inner_text()
    second.context.close()

    # The arbiter sets 5-2 on the disputes page.
    report = match.reports.get()
    # A federation admin runs its tournaments: signing in leads to the console.
    judge = signed_in(browser, live_server, arbiter, lands_on="/organize/")
    judge.goto(live_server.url + "/staff/disputes/")
    box = judge.locator(f"#dispute-{report.pk}")
    assert "The last game was a single: 5-2" in box.inner_text()
    box.locator("input[name=decision][value=set]").check()
    box.locator("input[name=score1]").fill("5")
    box.locator("input[name=score2]").fill("2")
    box.locator("textarea[name=reason]").fill("Scoresheet signed by both players says 5-2")
    with judge.expect_navigation():
        box.locator("button[type=submit]").click()
    assert "No disputed results are waiting for you." in judge.locator("main").inner_text()

    # The match page shows the confirmed 5-2 and every version.
    judge.goto(match_url)
    official = judge.locator("#official-result").inner_text()
    assert "5–2" in official and "confirmed" in official
    versions = judge.locator("#history li.report-version")
    assert versions.count() == 2
    history = judge.locator("#history").inner_text()
    assert "Scoresheet signed by both players says 5-2" in history
    assert "The last game was a single: 5-2" in history
    assert "rejected by the arbiter" in history
    judge.context.close()

    # The database agrees.
    match.refresh_from_db()
    assert (match.score1, match.score2, match.winner) == (5, 2, 1)
    assert match.result_status == ResultStatus.CONFIRMED
    reports = list(match.reports.order_by("id"))
    assert [(r.source, r.status, r.score1, r.score2) for r in reports] == [
        (ReportSource.PLAYER, ReportStatus.REJECTED, 5, 3),
        (ReportSource.ARBITER, ReportStatus.CONFIRMED, 5, 2),
    ]
    assert [r.kind for r in reports[0].responses.order_by("id")] == ["dispute", "overturn"]
