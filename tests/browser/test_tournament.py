"""An organizer runs an 8-player Swiss of three rounds to the end in the browser.

The federation's admin creates the tournament on the console, opens
registration, enters the eight players through the search, starts it, and
for each round pairs it, starts it, closes it, computes and publishes the
standings; at the end finishes it.  Results: in every round one match is
entered through the pages (the organizer's override form on the match page);
the others are reported and confirmed by the players through the games
services inside the test, for speed.  The public page then shows the final
standings with the tie-break columns, and its winner is the one
``tournaments.core.compute_standings`` finds on the results in the database.
"""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from clubs.models import Role
from tests.factories import DisciplineFactory, FederationFactory, PlayerFactory, UserFactory, grant
from tests.tournaments.builders import confirm_result
from tournaments import adapters, core
from tournaments.models import Entry, Pairing, Round, RoundState, Tournament, TournamentState

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "correct-horse-battery"  # tests.factories.UserFactory's
NAMES = ["Aliyev", "Babayev", "Guliyev", "Hasanov", "Ismayilov", "Karimov", "Mammadov", "Najafov"]


def winner_of(pairing: Pairing) -> int:
    """Not simply the better seed: the entry with the odd id wins, else the first one."""
    assert pairing.entry2_id is not None
    if pairing.entry1_id % 2 != pairing.entry2_id % 2:
        return pairing.entry1_id if pairing.entry1_id % 2 else pairing.entry2_id
    return pairing.entry1_id


def submit(page, button) -> None:  # type: ignore[no-untyped-def]
    """Click a form's button and wait for the page the post leads to."""
    with page.expect_navigation():
        button.click()


def press(page, label: str) -> None:  # type: ignore[no-untyped-def]
    """The console's next-step button called ``label``."""
    submit(page, page.locator("#next-step").get_by_role("button", name=label, exact=True))


def press_and_confirm(page, label: str) -> None:  # type: ignore[no-untyped-def]
    """A final next step: its button opens the question, "Yes: ..." acts (issue 15)."""
    box = page.locator("#next-step")
    box.get_by_role("button", name=f"{label}…", exact=True).click()
    submit(page, box.get_by_role("button", name=f"Yes: {label}", exact=True))


def test_an_organizer_runs_a_swiss_to_the_end(live_server, page) -> None:  # type: ignore[no-untyped-def]
    federation = FederationFactory(name="Azerbaijan Nardy Federation")
    discipline = DisciplineFactory()
    organizer = UserFactory(username="organizer")
    grant(organizer, Role.FEDERATION_ADMIN, federation)
    players = [
        PlayerFactory(
            federation=federation,
            name_native=f"{name} Тест",
            name_latin=f"{name} Test",
            user=UserFactory(),
        )
        for name in NAMES
    ]
    url = live_server.url

    # Sign in, create the tournament.
    page.goto(f"{url}{reverse('clubs:login')}?next={reverse('tournaments:organize')}")
    page.fill("input[name=username]", organizer.username)
    page.fill("input[name=password]", PASSWORD)
    submit(page, page.locator("form.stack button[type=submit]"))
    page.click("#new-tournament")
    page.fill("#id_name", "Baku Spring Swiss")
    page.select_option("#id_discipline", str(discipline.pk))
    page.select_option("#id_format", "swiss")
    page.fill("#id_rounds_planned", "3")
    page.fill("#id_match_length", "3")
    page.uncheck("#id_publish_standings")  # the organizer publishes each round's standings
    submit(page, page.locator("#tournament-form button[type=submit]"))
    expect(page.locator("h1")).to_have_text("Baku Spring Swiss")
    t = Tournament.objects.get(name="Baku Spring Swiss")
    assert (t.format, t.rounds_planned, t.publish_standings) == ("swiss", 3, False)

    # Registration: the eight players through one search.
    press(page, "Open registration")
    page.fill("input[name=q]", "Test")
    page.locator("#add-player button[type=submit]").click()
    for _ in players:
        submit(page, page.locator("#search-results").get_by_role("button", name="Enter").first)
    expect(page.locator("#entry-list tbody tr")).to_have_count(8)
    expect(page.locator("#search-results .entered")).to_have_count(8)  # all marked "entered"
    press(page, "Start the tournament")
    expect(page.locator("#timeline li.current")).to_have_text("running")

    for number in (1, 2, 3):
        press(page, f"Pair round {number}")
        rnd = Round.objects.get(tournament=t, number=number)
        block = page.locator(f"#round-{rnd.pk}")
        expect(block.locator("tbody tr")).to_have_count(4)
        press(page, f"Start round {number}")
        expect(block.locator(".state.started")).to_be_visible()

        pairings = list(
            rnd.pairings.select_related(
                "match__player1__user", "match__player2__user", "match"
            ).order_by("table")
        )
        # Table 1 through the pages: the organizer overrides the result on the match page.
        first = pairings[0]
        block.locator('tr[data-table="1"] a.match-link').click()
        page.locator("#override summary").click()
        won = first.match.length
        score = (won, 1) if winner_of(first) == first.entry1_id else (1, won)
        page.fill("#id_override_score1", str(score[0]))
        page.fill("#id_override_score2", str(score[1]))
        page.fill("#id_override_reason", "Scoresheet handed in at the desk.")
        submit(page, page.locator("#override-form button[type=submit]"))
        expect(page.locator("ul.messages")).to_contain_text("The result has been overridden.")
        # The other tables: the players report and confirm (services, for speed).
        for pairing in pairings[1:]:
            confirm_result(pairing, winner_of(pairing))

        page.goto(f"{url}{reverse('tournaments:console', args=[t.pk])}")
        expect(block.locator("tbody tr strong")).to_have_count(4)  # four confirmed scores
        press(page, f"Close round {number}")
        expect(block.locator(".state.closed")).to_be_visible()
        submit(page, page.locator("#compute-standings button"))
        press_and_confirm(page, f"Publish the standings after round {number}")
        expect(page.locator("#snapshots li").first).to_contain_text("published")

    assert Round.objects.filter(tournament=t, state=RoundState.CLOSED).count() == 3
    press_and_confirm(page, "Finish the tournament")
    expect(page.locator("#timeline li.current")).to_have_text("finished")
    t.refresh_from_db()
    assert t.state == TournamentState.FINISHED

    # The public page: final standings with the tie-break columns and the right winner.
    entries = list(Entry.objects.filter(tournament=t).select_related("player"))
    results = adapters.results(adapters.pairing_rows(t))
    assert len(results) == 12
    rows = core.compute_standings(
        adapters.core_entries(entries), results, adapters.standings_settings(t)
    )
    assert rows[0].place == "1" and rows[0].score == 3
    champion = next(e for e in entries if e.pk == rows[0].entry)

    page.goto(f"{url}{reverse('tournaments:public', args=[federation.slug, t.slug])}")
    standings = page.locator("#standings")
    expect(standings).to_contain_text("Final standings")
    headers = standings.locator("th.tb").all_inner_texts()
    assert headers == list(t.tie_breaks) and headers  # BH-C1, BH, SB, DE by default
    first_row = standings.locator("tbody tr").first
    expect(first_row.locator("td.place")).to_have_text("1")
    expect(first_row.locator("td.name")).to_have_text(str(champion.player))
    expect(first_row.locator("td.score")).to_have_text("3")
    expect(standings.locator("tbody tr")).to_have_count(8)
    # The tie-break values shown are the core's.
    shown = [v.strip() for v in first_row.locator("td.tb").all_inner_texts()]
    expected = ["—" if rows[0].tiebreaks[c] is None else str(rows[0].tiebreaks[c]) for c in headers]
    assert [re.sub(r"\.0$", "", v) for v in shown] == [re.sub(r"\.0$", "", v) for v in expected]
