"""Results typed in the console's bracket (issue 15): each open match box of a
bracket takes its score (two boxes, Enter) or a forfeit, through the round table's
endpoint, and the answer focuses the next open box of that bracket.  A recorded
match shows its live score; the public bracket, cached whole, holds no form.  And
the console names the knock-out round it is about to pair."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from django.test import Client
from django.urls import reverse

from games.models import Game, Match, MatchState, ResultStatus
from tests.factories import UserFactory
from tests.tournaments import builders
from tournaments import adapters, services
from tournaments.formats import base as formats_base
from tournaments.formats import registry
from tournaments.models import Pairing, Round, Tournament
from tournaments.views import console_steps

pytestmark = pytest.mark.django_db


def knockout(
    n: int = 8, fmt: str = "single_elimination", **settings: Any
) -> tuple[Tournament, Any]:
    federation, admin, _discipline = builders.federation_with_admin()
    t = builders.tournament(n, fmt, federation=federation, by=admin, **settings)
    return t, admin


def started(n: int = 8) -> tuple[Tournament, Round, Any]:
    """The first round of an ``n``-player knock-out (matches to 3) under way."""
    t, admin = knockout(n)
    rnd = services.pair_next_round(t, by=admin)
    services.start_round(rnd, by=admin)
    rnd.refresh_from_db()
    return t, rnd, admin


def console(client: Client, t: Tournament, query: str = "") -> str:
    response = client.get(reverse("tournaments:console", args=[t.pk]) + query)
    assert response.status_code == 200
    return response.content.decode()


def boxes(html: str) -> dict[int, str]:
    """The bracket's result forms by table."""
    found = re.findall(r'<form method="post" class="box-result".*?</form>', html, re.S)
    out = {}
    for form in found:
        table = re.search(r'data-table="(\d+)"', form)
        assert table is not None
        out[int(table.group(1))] = form
    return out


def post_box(client: Client, t: Tournament, rnd: Round, table: int, **data: Any) -> Any:
    """A box's form as the console draws it: the row's fields and ``at=bracket``."""
    return builders.inline_result(client, t, rnd, table, at="bracket", **data)


def focus_of(location: str) -> tuple[dict[str, list[str]], str]:
    parts = urlsplit(location)
    return parse_qs(parts.query), parts.fragment


def step_labels(html: str) -> list[str]:
    start = html.index('id="next-step"')
    box = html[start : html.index("</div>\n</div>", start)]
    found = re.findall(r"<(?:button|summary)[^>]*>([^<]+)</(?:button|summary)>", box)
    return [label.strip() for label in found if not label.startswith("Yes")]


# --- The boxes


def test_only_the_open_boxes_of_a_started_round_take_a_result(client: Client) -> None:
    t, admin = knockout(8)
    client.force_login(admin)
    rnd = services.pair_next_round(t, by=admin)
    assert boxes(console(client, t)) == {}  # paired, not started: nothing to enter yet
    services.start_round(rnd, by=admin)
    forms = boxes(console(client, t))
    assert sorted(forms) == [1, 2, 3, 4]
    address = reverse("tournaments:table_result", args=[t.pk, rnd.pk, 1])
    first = forms[1]
    assert f'action="{address}"' in first
    assert 'name="at" value="bracket"' in first
    assert 'name="score1"' in first and 'name="score2"' in first and 'max="3"' in first
    assert 'value="forfeit1"' in first and 'value="forfeit2"' in first
    # A knock-out match needs someone to go through: no double forfeit (as at the table).
    assert 'value="both"' not in first
    # The box lies over its match in the drawing.
    pairing = Pairing.objects.get(round=rnd, table=1)
    assert f'data-slot="{pairing.slot}"' in first

    builders.confirm_result(pairing, pairing.entry1_id)
    html = console(client, t)
    assert sorted(boxes(html)) == [2, 3, 4]  # the official result shows its score instead
    match = Match.objects.get(pk=pairing.match_id)
    drawn = re.search(
        rf'<g class="match decided"[^>]*data-slot="{pairing.slot}">.*?</a>', html, re.S
    )
    assert drawn is not None
    assert f'text-anchor="end">{match.score1}</text>' in drawn.group(0)
    assert f'text-anchor="end">{match.score2}</text>' in drawn.group(0)


def test_a_result_typed_in_a_box_goes_on_to_the_next_open_box(client: Client) -> None:
    t, rnd, admin = started(8)
    client.force_login(admin)
    response = post_box(client, t, rnd, 1, score1=3, score2=1)
    assert response.status_code == 302
    query, fragment = focus_of(response["Location"])
    assert query == {"round": [str(rnd.pk)], "next": ["2"], "at": ["bracket"]}
    assert fragment == ""  # a fragment would stop the browser's autofocus
    match = Pairing.objects.select_related("match").get(round=rnd, table=1).match
    assert match is not None
    assert (match.result_status, match.score1, match.score2) == (ResultStatus.CONFIRMED, 3, 1)

    page = client.get(response["Location"])
    assert "Table 1: 3–1 is official." in [str(m) for m in page.context["messages"]]
    html = page.content.decode()
    # One box of the page has the focus: the bracket's, not the round table's row.
    assert html.count("autofocus") == 1
    assert re.search(r'name="score1"[^>]*autofocus', boxes(html)[2])
    row = re.search(rf'<tr[^>]*id="table-{rnd.pk}-2".*?</tr>', html, re.S)
    assert row is not None and "autofocus" not in row.group(0)

    # From the last box back to the first still open; the round table is untouched.
    response = post_box(client, t, rnd, 4, action="forfeit1")
    assert focus_of(response["Location"])[0]["next"] == ["2"]
    assert Pairing.objects.get(round=rnd, table=4).forfeit_winner == 2
    post_box(client, t, rnd, 2, score1=0, score2=3)
    response = post_box(client, t, rnd, 3, score1=3, score2=2)
    # Nothing left open: to the bracket itself.
    assert focus_of(response["Location"]) == ({}, "bracket-main")
    assert boxes(console(client, t)) == {}


def test_a_refused_box_keeps_the_focus_and_saves_nothing(client: Client) -> None:
    t, rnd, admin = started(8)
    client.force_login(admin)
    response = post_box(client, t, rnd, 2, score1=1, score2=1)  # cannot end a match to 3
    assert response.status_code == 302
    query, _fragment = focus_of(response["Location"])
    assert query == {"round": [str(rnd.pk)], "next": ["2"], "at": ["bracket"]}
    match = Pairing.objects.select_related("match").get(round=rnd, table=2).match
    assert match is not None and match.result_status != ResultStatus.CONFIRMED
    page = client.get(response["Location"])
    said = [str(m) for m in page.context["messages"]]
    assert len(said) == 1 and said[0].startswith("Table 2:") and "Nothing was saved." in said[0]
    # A stale box (its result changed meanwhile) is refused the same way.
    response = post_box(client, t, rnd, 3, score1=3, score2=0, version="stale")
    assert focus_of(response["Location"])[0]["next"] == ["3"]
    match = Pairing.objects.select_related("match").get(round=rnd, table=3).match
    assert match is not None and match.score1 is None


def test_a_recorded_match_shows_its_live_score_in_its_box(client: Client) -> None:
    t, rnd, admin = started(8)
    client.force_login(admin)
    match = Pairing.objects.select_related("match").get(round=rnd, table=3).match
    assert match is not None
    Match.objects.filter(pk=match.pk).update(recorded=True, state=MatchState.PLAYING)
    Game.objects.create(match=match, number=1, winner=1, points=2)
    Game.objects.create(match=match, number=2, score1_before=2, winner=2, points=1)
    forms = boxes(console(client, t))
    live = forms[3]
    assert 'name="score1"' not in live  # its record gives the result
    assert re.search(r'class="box-live side1"[^>]*>.*?2</span>', live, re.S)
    assert re.search(r'class="box-live side2"[^>]*>1</span>', live)
    assert 'value="forfeit1"' in live  # a forfeit stays at hand
    assert 'name="score1"' in forms[1] and "box-live" not in forms[1]
    # Typed results skip it: from table 2 the focus goes on to table 4.
    response = post_box(client, t, rnd, 2, score1=3, score2=0)
    assert focus_of(response["Location"])[0]["next"] == ["4"]


def test_the_boxes_are_the_organizers_alone(client: Client) -> None:
    t, rnd, _admin = started(8)
    stranger = UserFactory()
    client.force_login(stranger)
    response = client.get(reverse("tournaments:console", args=[t.pk]))
    assert response.status_code in (403, 404)
    response = post_box(client, t, rnd, 1, score1=3, score2=0)
    assert response.status_code in (403, 404)
    match = Pairing.objects.select_related("match").get(round=rnd, table=1).match
    assert match is not None and match.score1 is None


def test_the_public_bracket_holds_no_form(client: Client) -> None:
    t, _rnd, admin = started(8)
    client.force_login(admin)
    assert len(boxes(console(client, t))) == 4
    url = reverse("tournaments:public_bracket", args=[t.federation.slug, t.slug, "main"])
    for viewer in (admin, None):  # the organizer sees the public page as anyone does
        if viewer is None:
            client.logout()
        html = client.get(url).content.decode()
        part = html[html.index('<section class="part" id="brackets">') :]
        part = part[: part.index("</section>")]
        assert part.count('<g class="match') == 7
        assert (
            "<form" not in part and "box-result" not in part and "csrfmiddlewaretoken" not in part
        )
    # Anonymous pages are kept whole by the page cache: not one token in it.
    assert "csrfmiddlewaretoken" not in html


# --- Naming the round about to be paired


def test_the_pair_button_names_the_knockout_round(client: Client) -> None:
    t, admin = knockout(8)
    client.force_login(admin)
    fmt = registry.for_tournament(t)
    for expected, title in (
        ("Pair the quarter-finals", "Quarter-final"),
        ("Pair the semi-finals", "Semi-final"),
        ("Pair the final", "Final"),
    ):
        assert step_labels(console(client, t))[0] == expected
        rnd = services.pair_next_round(t, by=admin)
        # The name the round has once paired is the one the button said.
        assert fmt.round_title(Tournament.objects.get(pk=t.pk), "main", rnd.number) == title
        builders.play_round(rnd, admin)
    assert not any(label.startswith("Pair") for label in step_labels(console(client, t)))


def test_a_field_of_sixteen_pairs_the_eighth_finals_and_byes_count_as_the_draw(
    client: Client,
) -> None:
    t, admin = knockout(16)
    client.force_login(admin)
    assert step_labels(console(client, t))[0] == "Pair the 1/8 finals"
    # Six players in a draw of eight: the first round is the quarter-finals (two byes).
    six, six_admin = knockout(6)
    client.force_login(six_admin)
    assert step_labels(console(client, six))[0] == "Pair the quarter-finals"
    rnd = services.pair_next_round(six, by=six_admin)
    assert registry.for_tournament(six).round_title(six, "main", rnd.number) == "Quarter-final"


def test_flights_and_sections_keep_what_they_say(client: Client) -> None:
    t, admin = knockout(8, "main_consolation")
    client.force_login(admin)
    # Several flights paired side by side: the flight is said too.
    assert step_labels(console(client, t))[0] == "Pair the quarter-finals (main flight)"
    # Groups then a knock-out: the group stage's rounds, then the knock-out's by name.
    groups, groups_admin = knockout(8, "groups_knockout", groups=2, qualifiers_per_group=2)
    client.force_login(groups_admin)
    said = []
    for _ in range(6):
        label = step_labels(console(client, groups))[0]
        if not label.startswith("Pair"):
            break
        said.append(label)
        builders.play_round(services.pair_next_round(groups, by=groups_admin), groups_admin)
    assert said == [*["Pair the next round"] * 3, "Pair the semi-finals", "Pair the final"]
    # A double elimination's winners' and losers' rounds keep their numbers.
    double, double_admin = knockout(4, "double_elimination")
    client.force_login(double_admin)
    assert step_labels(console(client, double))[0] == "Pair round 1"
    # A Swiss keeps "Pair round 1".
    swiss, swiss_admin = knockout(4, "swiss", rounds_planned=2)
    client.force_login(swiss_admin)
    assert step_labels(console(client, swiss))[0] == "Pair round 1"


def test_the_double_elimination_pairs_its_grand_final_by_name(client: Client) -> None:
    t, admin = knockout(4, "double_elimination")
    client.force_login(admin)
    for _ in range(10):
        labels = [label for label in step_labels(console(client, t)) if label.startswith("Pair")]
        if not labels:
            break
        if labels[0] == "Pair the grand final":
            rnd = services.pair_next_round(t, by=admin)
            title = registry.for_tournament(t).round_title(
                Tournament.objects.get(pk=t.pk), "main", rnd.number
            )
            assert title == "Grand final"
            return
        builders.play_round(services.pair_next_round(t, by=admin), admin)
    raise AssertionError("the grand final was never offered by name")


def test_the_round_names_are_worked_out_once_a_request(client: Client, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    t, admin = knockout(8)
    client.force_login(admin)
    builders.play_round(services.pair_next_round(t, by=admin), admin)
    rnd = services.pair_next_round(t, by=admin)
    services.start_round(rnd, by=admin)
    calls = []
    real = formats_base._knockout_round_names

    def counted(*args: Any) -> Any:
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(formats_base, "_knockout_round_names", counted)
    html = console(client, t)
    assert "Semi-final" in html
    assert len(calls) == 1


def expected_label(title: str) -> str | None:
    """The pair button a round of this title was announced by (None: by its number)."""
    if title.startswith("Round "):
        return None
    if title == "Grand final":
        return "Pair the grand final"
    plural = {"Final": "final", "Semi-final": "semi-finals", "Quarter-final": "quarter-finals"}
    return f"Pair the {plural.get(title, title + 's')}"


def test_every_announced_name_is_the_paired_rounds_title() -> None:
    # A progressive consolation takes the main flight's losers round after round: some
    # of its rounds keep their number, as their titles do.
    t = builders.tournament(16, "main_consolation", progressive_consolation=True)
    admin = t.created_by
    fmt = registry.for_tournament(t)
    seen = []
    for _ in range(30):
        progressed = False
        for flight in fmt.paired_flights(t):
            t = Tournament.objects.get(pk=t.pk)  # a new request: nothing kept
            entries = list(adapters.entry_rows(t))
            pairings = list(adapters.pairing_rows(t))
            if not fmt.can_pair_next(t, flight, entries, pairings):
                continue
            label = console_steps.pair_label(fmt, t, flight, entries, pairings)
            rnd = services.pair_next_round(t, by=admin, flight=flight)
            title = fmt.round_title(Tournament.objects.get(pk=t.pk), flight, rnd.number)
            assert label == expected_label(title.split(" · ")[0]), (flight, rnd.number, title)
            seen.append(label)
            builders.play_round(rnd, admin)
            progressed = True
        if not progressed:
            break
    assert "Pair the final" in seen and None in seen
