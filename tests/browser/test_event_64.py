"""A director runs a 64-player event in the browser from an empty federation (issue 15).

The format is a main flight with progressive consolation and a last-chance
flight, matches to 9, 7 and 5 points.  The director signs in, creates the
tournament on the console's form (the per-flight lengths in its rows), enters
the 64 players by pasting a list (a preview, then one confirmation: every name
is new to the federation and becomes a player), checks everyone in, starts it,
and then, wave after wave, pairs every flight the console offers, starts each
round, types every table's result into the console's round table (score, Tab,
score, Enter), closes the rounds, and at the end finishes the tournament (with
its confirmation).  In main round 1 one table is a forfeit (its button) and
one is disputed: the two players (who claimed their profiles when the round
was paired; claims have their own tests, so through the services) report and
dispute on their phones, and the director decides it from the disputes queue
reached through the header's link.  An anonymous visitor, in a browser context
of their own, checks the public pages at each step: the round's page once it
is paired and once its results are in, the brackets of the flights, the
standings, a player's page, and at the end the champion.

Counting (``Tally``).  A *page load* is a ``load`` event of a page, whoever's
(the director's, the visitor's, the players').  An *action* is one submitting
gesture: a click on a button or a link, Enter in a form, or an address typed
(``goto``); what goes before it without leaving the page (typing a name, two
scores or a reason, focusing a box, opening a final step's question) belongs
to the gesture that sends it.  A *result action* is the director's gesture
that makes one table's result official (a score's Enter, a forfeit button, the
dispute's decision): the test asserts one per result, and that each brought
exactly one page load; the disputed table also took its two players' gestures
(the report, the dispute), counted as theirs.  The summary line ``EVENT-64:
...`` is printed and written to ``event-64.txt`` in the test's temporary
directory.

The standings are computed by the Celery task each result owes, run in the
live server's thread (``worker``), as a worker would in production: nobody
presses "Compute the standings now".

The second test: a registered player opens the self check-in link on a phone
during the window the director set on the registration page, signs in, and
checks in (three page loads, three actions).
"""

from __future__ import annotations

import datetime
import re
from collections import Counter
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import pytest
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from clubs import services as club_services
from clubs.models import Player, Role
from games.models import ReportStatus, ResultStatus
from tests.factories import DisciplineFactory, FederationFactory, UserFactory, grant
from tests.tournaments import builders
from tournaments import adapters, services
from tournaments.formats import flights, registry
from tournaments.models import (
    Entry,
    EntryStatus,
    Pairing,
    Round,
    RoundState,
    Tournament,
    TournamentState,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "correct-horse-battery"  # tests.factories.UserFactory's
FIRST = ["Elchin", "Rashad", "Nigar", "Leyla", "Orkhan", "Sevda", "Tural", "Aysel"]
LAST = ["Aliyev", "Babayev", "Guliyev", "Hasanov", "Ismayilov", "Karimov", "Mammadov", "Najafov"]
NAMES = [f"{first} {last}" for last in LAST for first in FIRST]
LENGTHS = {flights.MAIN: 9, flights.CONSOLATION: 7, flights.LAST_CHANCE: 5}
FLIGHTS = list(LENGTHS)


@pytest.fixture
def worker() -> Iterator[None]:
    """The Celery worker that computes the standings after results, run in the live
    server's thread as each request commits (the test has no worker process)."""
    from config.celery import app

    saved = app.conf.task_always_eager, app.conf.task_eager_propagates
    app.conf.task_always_eager = app.conf.task_eager_propagates = True
    yield
    app.conf.task_always_eager, app.conf.task_eager_propagates = saved


class Tally:
    """Page loads and actions, by who made them (see the module)."""

    def __init__(self) -> None:
        self.loads: Counter[str] = Counter()
        self.actions: Counter[str] = Counter()
        self.result_actions = 0

    def watch(self, page: Any, who: str) -> Any:
        page.on("load", lambda *_: self.loads.update([who]))
        return page

    def act(self, page: Any, who: str, gesture: Callable[[], Any], *, result: bool = False) -> None:
        """One submitting gesture, waiting for the page it leads to."""
        before = self.loads[who]
        with page.expect_navigation():  # waits for the new page's load event
            gesture()
        self.actions[who] += 1
        if result:
            self.result_actions += 1
            assert self.loads[who] == before + 1, "a result took more than one page load"

    def click(self, page: Any, who: str, target: Any, *, result: bool = False) -> None:
        self.act(page, who, target.click, result=result)

    def go(self, page: Any, who: str, url: str) -> None:
        page.goto(url)
        self.actions[who] += 1

    def summary(self) -> str:
        loads, actions = sum(self.loads.values()), sum(self.actions.values())
        return (
            f"EVENT-64: {loads} page loads, {actions} actions, {self.result_actions} results "
            f"(director {self.loads['director']} loads / {self.actions['director']} actions, "
            f"{self.result_actions} of them results; public pages {self.loads['public']} "
            f"loads; players {self.loads['players']} loads / {self.actions['players']} actions)"
        )


def new_page(browser: Any, tally: Tally, who: str, *, phone: bool = False) -> Any:
    size = {"width": 390, "height": 844} if phone else {"width": 1280, "height": 900}
    context = browser.new_context(locale="en-US", viewport=size, is_mobile=phone, has_touch=phone)
    page = context.new_page()
    page.set_default_timeout(20_000)
    return tally.watch(page, who)


def sign_in(tally: Tally, page: Any, who: str, url: str, user: Any, target: str) -> None:
    tally.go(page, who, f"{url}{reverse('clubs:login')}?next={target}")
    page.fill("input[name=username]", user.username)
    page.fill("input[name=password]", PASSWORD)
    tally.click(page, who, page.locator("form.stack button[type=submit]"))


def steps(page: Any, action: str) -> Any:
    """The console's next-step buttons posting to an address ending in ``action``
    (their labels name the rounds as the format does: found by what they do)."""
    return page.locator(f"#next-step form[action$='{action}'] > button")


def focused_box(page: Any) -> str:
    """The id of the table row holding the focused element, and the element's name."""
    return page.evaluate(
        "() => { const e = document.activeElement; const row = e && e.closest('tr');"
        " return (row ? row.id : '') + '/' + (e ? e.getAttribute('name') : ''); }"
    )


def better_side(pairing: Pairing) -> int:
    """The better seed wins every match here (so the champion is seed 1): its side."""
    assert pairing.entry2 is not None
    return 1 if pairing.entry1.seed < pairing.entry2.seed else 2  # type: ignore[operator]


def final_score(pairing: Pairing, length: int) -> tuple[int, int]:
    """A legal final score: the winner reaches the length, the loser anything below."""
    loser = (pairing.table * 3) % length
    return (length, loser) if better_side(pairing) == 1 else (loser, length)


def with_players(rnd: Round, table: int) -> Pairing:
    return rnd.pairings.select_related("entry1__player", "entry2__player", "match").get(table=table)


class Event:
    """The director's console page and the visitor's public page, with the tally."""

    def __init__(self, browser: Any, url: str, tally: Tally, director: Any) -> None:
        self.browser, self.url, self.tally, self.director = browser, url, tally, director
        self.desk = new_page(browser, tally, "director")
        self.anon = new_page(browser, tally, "public")
        self.slug: tuple[str, str] = ("", "")

    def click(self, target: Any, *, result: bool = False) -> None:
        self.tally.click(self.desk, "director", target, result=result)

    def press(self, label: str) -> None:
        self.click(self.desk.locator("#next-step").get_by_role("button", name=label, exact=True))

    def press_and_confirm(self, label: str) -> None:
        """A final step: its button opens the question, "Yes: ..." acts."""
        box = self.desk.locator("#next-step")
        box.get_by_role("button", name=f"{label}…", exact=True).click()
        self.click(box.get_by_role("button", name=f"Yes: {label}", exact=True))

    def press_all(self, action: str) -> None:
        """Each next step of a kind, one press each (the page after a press offers the rest)."""
        while steps(self.desk, action).count():
            self.click(steps(self.desk, action).first)

    def public(self, name: str, *args: Any) -> Any:
        path = reverse(f"tournaments:{name}", args=[*self.slug, *args])
        self.tally.go(self.anon, "public", f"{self.url}{path}")
        return self.anon

    def enter_round(
        self, rnd: Round, *, skip: int | None = None, forfeit: int | None = None
    ) -> None:
        """Every table of the round but ``skip``, typed into the console's row: the first
        box (focused by the page after the previous result), score, Tab, score, Enter;
        table ``forfeit`` by its forfeit button, the worse seed forfeiting."""
        desk = self.desk
        pairings = rnd.pairings.select_related("entry1", "entry2").order_by("table")
        for p in pairings:
            if p.entry2_id is None or p.table == skip:
                continue
            row = desk.locator(f"#table-{rnd.pk}-{p.table}")
            if p.table == forfeit:
                loser = 2 if better_side(p) == 1 else 1
                self.click(row.get_by_role("button", name=f"{loser} forfeits"), result=True)
                expect(desk.locator("ul.messages")).to_contain_text("wins by forfeit")
                continue
            if focused_box(desk) != f"table-{rnd.pk}-{p.table}/score1":
                row.locator("input[name=score1]").focus()  # a click into it: part of the gesture
            score1, score2 = final_score(p, rnd.match_length)
            keys = f"{score1}\t{score2}\n"
            self.tally.act(desk, "director", partial(type_keys, desk, keys), result=True)
            expect(desk.locator("ul.messages")).to_have_text(
                f"Table {p.table}: {score1}–{score2} is official."
            )

    def check_paired(self, rnd: Round) -> None:
        """The public round page lists the round's tables once it is paired."""
        first = with_players(rnd, 1)
        page = self.public("public_round", rnd.flight, rnd.number)
        rows = page.locator(f"#round-{rnd.pk} tbody tr")
        expect(rows).to_have_count(min(50, rnd.pairings.count()))
        expect(rows.first.locator("td").nth(1)).to_have_text(str(first.entry1.player))
        expect(rows.first.locator("td").nth(2)).to_have_text(str(first.entry2.player))  # type: ignore[union-attr]
        head = page.locator(f"#round-{rnd.pk} .round-head")
        expect(head).to_contain_text(f"matches to {rnd.match_length}")
        # Named as every page names it: "1/16 final · Consolation", "Round 1 · Consolation".
        title = registry.for_tournament(rnd.tournament).round_title(
            rnd.tournament, rnd.flight, rnd.number
        )
        expect(head.locator("h3")).to_contain_text(title)
        assert "1/128" not in title and "1/64" not in title

    def check_results(self, rnd: Round) -> None:
        """... and its results once they are entered."""
        first = with_players(rnd, 1)
        page = self.public("public_round", rnd.flight, rnd.number)
        cell = page.locator(f"#round-{rnd.pk} tbody tr").first.locator("td").nth(3)
        if first.forfeit_winner:
            expect(cell).to_contain_text("forfeit")
        else:
            expect(cell).to_have_text(f"{first.match.score1}–{first.match.score2}")  # type: ignore[union-attr]


def type_keys(page: Any, keys: str) -> None:
    """Typed as the director types: a tab moves to the next box, a newline is Enter."""
    for part in re.split(r"([\t\n])", keys):
        if part == "\t":
            page.keyboard.press("Tab")
        elif part == "\n":
            page.keyboard.press("Enter")
        elif part:
            page.keyboard.type(part)


def dispute_on_phones(event: Event, pairing: Pairing, right: tuple[int, int]) -> None:
    """The table's players claimed their profiles (through the services: claims have
    their own tests); on their phones, player 1 reports a wrong score, player 2
    disputes it."""
    users = []
    for entry in (pairing.entry1, pairing.entry2):
        assert entry is not None
        user = UserFactory()
        claim = club_services.claim_profile(entry.player, by=user, message="It is me.")
        club_services.decide_claim(claim, by=event.director, approve=True)
        users.append(user)
    assert pairing.match is not None
    match_url = reverse("games:match", args=[pairing.match.pk])
    wrong = (right[0], right[1] + 1) if right[0] > right[1] else (right[0] + 1, right[1])
    reporter = new_page(event.browser, event.tally, "players", phone=True)
    sign_in(event.tally, reporter, "players", event.url, users[0], match_url)
    reporter.fill("#report-form input[name=score1]", str(wrong[0]))
    reporter.fill("#report-form input[name=score2]", str(wrong[1]))
    event.tally.click(reporter, "players", reporter.locator("#report-form button[type=submit]"))
    expect(reporter.locator("#open-report")).to_contain_text(f"{wrong[0]}–{wrong[1]}")
    reporter.context.close()
    opponent = new_page(event.browser, event.tally, "players", phone=True)
    sign_in(event.tally, opponent, "players", event.url, users[1], match_url)
    opponent.fill("#dispute-form textarea[name=reason]", f"It ended {right[0]}-{right[1]}.")
    event.tally.click(opponent, "players", opponent.locator("#dispute-form button[type=submit]"))
    expect(opponent.locator("#open-report")).to_contain_text("disputed")
    opponent.context.close()


def decide_from_queue(event: Event, pairing: Pairing, right: tuple[int, int], name: str) -> None:
    """The header says a dispute waits; the director sets the score there and goes
    back to the console through the header's links."""
    desk = event.desk
    event.click(desk.locator("header .account").get_by_role("link", name="Disputes (1)"))
    match = pairing.match
    assert match is not None
    report = match.reports.get(status=ReportStatus.DISPUTED)
    box = desk.locator(f"#dispute-{report.pk}")
    expect(box).to_contain_text(f"It ended {right[0]}-{right[1]}.")
    box.locator("input[name=decision][value=set]").check()
    box.locator("input[name=score1]").fill(str(right[0]))
    box.locator("input[name=score2]").fill(str(right[1]))
    box.locator("textarea[name=reason]").fill("Both scoresheets say so.")
    event.click(box.locator("button[type=submit]"), result=True)
    expect(desk.locator("main")).to_contain_text("No disputed results are waiting for you.")
    expect(desk.locator("header .account")).to_contain_text("Disputes (0)")
    event.click(desk.locator("header").get_by_role("link", name="Organize"))
    event.click(desk.get_by_role("link", name=name))
    match.refresh_from_db()
    assert (match.score1, match.score2, match.result_status) == (*right, ResultStatus.CONFIRMED)


def test_a_64_player_event_from_an_empty_federation(live_server, browser, worker, tmp_path) -> None:  # type: ignore[no-untyped-def]
    federation = FederationFactory(name="Azerbaijan Nardy Federation")
    discipline = DisciplineFactory()
    director = UserFactory(username="director")
    grant(director, Role.FEDERATION_ADMIN, federation)
    assert not Player.objects.filter(federation=federation).exists()
    tally = Tally()
    event = Event(browser, live_server.url, tally, director)
    desk = event.desk

    # Sign in, create the tournament: three flights, 9, 7 and 5 points.
    sign_in(tally, desk, "director", event.url, director, reverse("tournaments:new"))
    desk.fill("#id_name", "Baku Open 64")
    desk.select_option("#id_discipline", str(discipline.pk))
    desk.select_option("#id_format", "main_consolation")
    desk.check("#id_progressive_consolation")
    desk.check("#id_last_chance")
    desk.fill("#id_match_length", str(LENGTHS[flights.MAIN]))
    for row, flight in enumerate((flights.CONSOLATION, flights.LAST_CHANCE)):
        desk.select_option(f"#id_lengths-{row}-flight", flight)
        desk.fill(f"#id_lengths-{row}-length", str(LENGTHS[flight]))
    event.click(desk.locator("#tournament-form button[type=submit]"))
    expect(desk.locator("h1")).to_have_text("Baku Open 64")
    t = Tournament.objects.get(name="Baku Open 64")
    assert (t.format, t.progressive_consolation, t.last_chance) == ("main_consolation", True, True)
    assert {f: t.length_for(f, 1) for f in FLIGHTS} == LENGTHS
    event.slug = (federation.slug, t.slug)

    # Registration: 64 names pasted, previewed, confirmed.
    event.press("Open registration")
    page = event.public("public")
    expect(page.locator("h1")).to_contain_text("Baku Open 64")
    tools = desk.locator("#registration-tools")
    event.click(tools.get_by_role("link", name="Add players from a list"))
    desk.fill("#id_names", "\n".join(f"{name}, {1900 - 5 * k}" for k, name in enumerate(NAMES)))
    event.click(desk.locator("#bulk-form button[type=submit]"))
    expect(desk.locator("#preview-list tbody tr[data-kind=new]")).to_have_count(64)
    expect(desk.locator("#preview .lead")).to_have_text(
        "0 found, 0 to choose, 64 new, 0 already entered."
    )
    event.click(desk.locator("#bulk-confirm button[type=submit]"))
    expect(desk.locator("ul.messages")).to_contain_text("64 players entered.")
    expect(desk.locator("#entry-list tbody tr")).to_have_count(64)
    assert Player.objects.filter(federation=federation).count() == 64
    page = event.public("public_entries")
    expect(page.locator("#entry-list tbody tr")).to_have_count(64)

    # Check-in: everyone at once; then the start.
    event.press("Open check-in")
    event.click(tools.get_by_role("button", name="Check in everyone"))
    expect(desk.locator("ul.messages")).to_contain_text("64 players checked in.")
    event.press("Start the tournament")
    expect(desk.locator("#timeline li.current")).to_have_text("running")
    seeds = Entry.objects.filter(tournament=t).values_list("seed", flat=True)
    assert sorted(seeds) == list(range(1, 65))
    leader = Entry.objects.select_related("player").get(tournament=t, seed=1)

    # Wave after wave: every flight the console offers is paired, started, entered, closed.
    wave = 0
    while steps(desk, "/rounds/pair/").count():
        wave += 1
        event.press_all("/rounds/pair/")
        paired = list(
            Round.objects.filter(tournament=t, state=RoundState.PAIRED).order_by("number", "flight")
        )
        assert paired
        for rnd in paired:
            assert rnd.match_length == LENGTHS[rnd.flight]
            event.check_paired(rnd)
        event.press_all("/start/")
        assert not Round.objects.filter(tournament=t, state=RoundState.PAIRED).exists()

        if wave == 1:
            # Main round 1: table 1 is disputed by its players, table 2 is a forfeit.
            (first_round,) = paired
            disputed = with_players(first_round, 1)
            right = final_score(disputed, first_round.match_length)
            dispute_on_phones(event, disputed, right)
            event.enter_round(first_round, skip=1, forfeit=2)
            decide_from_queue(event, disputed, right, "Baku Open 64")
        else:
            for rnd in paired:
                event.enter_round(rnd)
        for rnd in paired:
            event.check_results(rnd)
        event.press_all("/close/")
        assert not Round.objects.filter(tournament=t).exclude(state=RoundState.CLOSED).exists()

        # The brackets of the flights played, seed 1's page and the standings.
        for flight in sorted({r.flight for r in paired}):
            page = event.public("public_bracket", flight)
            drawn = page.locator(f"#brackets .flight[data-flight={flight}]")
            expect(drawn.locator("g.match").first).to_be_visible()
            expect(drawn.locator("g.side.won").first).to_be_visible()
        page = event.public("public_player", leader.pk)
        played = Pairing.objects.filter(Q(entry1=leader) | Q(entry2=leader), round__tournament=t)
        expect(page.locator("#record tbody tr")).to_have_count(played.count())
        expect(page.locator("#record tbody tr td.result").last).to_contain_text("won")
        # Published as the wave's last round closed: seed 1 won every main round so far.
        page = event.public("public_standings")
        row = page.locator(f"table.standings[data-flight=main] tr[data-entry='{leader.pk}'] td")
        expect(row.nth(2)).to_have_text(str(played.count()))
        expect(row.nth(3)).to_have_text("0")

    # Every flight played out: 63 + 59 + 31 matches in 19 rounds, in 8 waves.
    counts = {
        f: Pairing.objects.filter(round__tournament=t, round__flight=f).count() for f in FLIGHTS
    }
    assert counts == {flights.MAIN: 63, flights.CONSOLATION: 59, flights.LAST_CHANCE: 31}
    assert Round.objects.filter(tournament=t).count() == 19
    every = Pairing.objects.filter(round__tournament=t).select_related("match")
    assert all(adapters.is_decided(p) for p in every)
    assert every.filter(forfeit_winner__isnull=False).count() == 1

    # Finish (it asks first); the tournament publishes its standings: the final ones
    # are public as it finishes.  The public sees the champion, seed 1.
    event.press_and_confirm("Finish the tournament")
    expect(desk.locator("#timeline li.current")).to_have_text("finished")
    expect(desk.locator("#snapshots li").first).to_contain_text("After round 19 · published")
    t.refresh_from_db()
    assert t.state == TournamentState.FINISHED
    page = event.public("public")
    standings = page.locator("#standings")
    expect(standings).to_contain_text("Final standings")
    first_row = standings.locator("tbody tr").first
    expect(first_row.locator("td.place")).to_have_text("1")
    expect(first_row.locator("td.name")).to_have_text(str(leader.player))
    page = event.public("public_bracket", flights.MAIN)
    expect(page.locator("#brackets")).to_contain_text(str(leader.player))
    page = event.public("public_player", leader.pk)
    expect(page.locator("#standing .place")).to_have_text("Place 1")

    # The tally: one director's gesture per result, each one page load.
    assert tally.result_actions == sum(counts.values()) == 153
    line = tally.summary()
    print(line)
    (tmp_path / "event-64.txt").write_text(line + "\n")


def test_a_player_checks_in_from_the_link_on_a_phone(live_server, browser) -> None:  # type: ignore[no-untyped-def]
    federation, director, _discipline = builders.federation_with_admin()
    t = builders.tournament(
        4, "swiss", federation=federation, by=director, rounds_planned=2, start=False
    )
    services.set_state(t, TournamentState.CHECK_IN, by=director)
    mine = Entry.objects.select_related("player__user").filter(tournament=t).order_by("pk").first()
    assert mine is not None
    url = live_server.url
    tally = Tally()

    # The director sets the window: from five minutes ago for an hour.
    desk = new_page(browser, tally, "director")
    tools = reverse("tournaments:entries_bulk", args=[t.pk])
    sign_in(tally, desk, "director", url, director, tools)
    now = timezone.localtime()
    stamp = "%Y-%m-%dT%H:%M"
    desk.fill("#id_opens_at", (now - datetime.timedelta(minutes=5)).strftime(stamp))
    desk.fill("#id_closes_at", (now + datetime.timedelta(hours=1)).strftime(stamp))
    section = desk.locator("#self-check-in")
    tally.act(
        desk, "director", lambda: section.get_by_role("button", name="Set the window").click()
    )
    expect(section).to_contain_text("open now")
    link = desk.locator("#self-check-in-link").get_attribute("href")
    assert link

    # The player opens it on a phone, signs in, and checks in.
    phone = new_page(browser, tally, "player", phone=True)
    tally.go(phone, "player", link)
    assert reverse("clubs:login") in phone.url  # the link asks to sign in first
    phone.fill("input[name=username]", mine.player.user.username)
    phone.fill("input[name=password]", PASSWORD)
    tally.act(phone, "player", lambda: phone.locator("form.stack button[type=submit]").click())
    assert phone.url == link
    form = phone.locator("#self-check-in-form")
    expect(form).to_contain_text(str(mine.player))
    tally.act(phone, "player", lambda: form.get_by_role("button", name="Check me in").click())
    expect(phone.locator("#checked-in")).to_have_text(f"{mine.player}, you are checked in.")
    # Nothing on the page is wider than the phone.
    assert phone.evaluate("() => document.documentElement.scrollWidth") <= 390
    assert (tally.loads["player"], tally.actions["player"]) == (3, 3)

    mine.refresh_from_db()
    assert mine.status == EntryStatus.CHECKED_IN
    others = Entry.objects.filter(tournament=t).exclude(pk=mine.pk)
    assert set(others.values_list("status", flat=True)) == {EntryStatus.REGISTERED}
    tally.go(desk, "director", f"{url}{reverse('tournaments:console', args=[t.pk])}")
    expect(desk.locator(f"#entry-list tr[data-entry='{mine.pk}'] .state")).to_have_text(
        "checked in"
    )
