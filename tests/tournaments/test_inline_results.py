"""Results typed in the console's round table (issue 15): one post per result, which
goes to the result services and sends the director on to the next open table.
Refused posts (a score that cannot end the match, a stale row, a stranger) save
nothing and name the table."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games.models import Game, Match, MatchState, ResultReport, ResultStatus
from tests.factories import UserFactory
from tests.tournaments import builders
from tournaments import services
from tournaments.models import BOTH_FORFEITED, Pairing, Round
from tournaments.views.results_inline import result_version

pytestmark = pytest.mark.django_db


@pytest.fixture
def started():  # type: ignore[no-untyped-def]
    """Round 1 of an 8-player Swiss (matches to 3) under way: four tables."""
    federation, admin, _discipline = builders.federation_with_admin()
    t = builders.tournament(8, "swiss", federation=federation, by=admin, rounds_planned=3)
    rnd = services.pair_next_round(t, by=admin)
    services.start_round(rnd, by=admin)
    rnd.refresh_from_db()
    return t, rnd, admin


def table(rnd: Round, number: int) -> Pairing:
    return Pairing.objects.select_related("match", "entry1", "entry2").get(round=rnd, table=number)


def url(t, rnd: Round, number: int) -> str:  # type: ignore[no-untyped-def]
    return reverse("tournaments:table_result", args=[t.pk, rnd.pk, number])


def post(client, t, rnd: Round, number: int, **data):  # type: ignore[no-untyped-def]
    """The row's form as the console draws it: its version is the table's current one."""
    return builders.inline_result(client, t, rnd, number, **data)


def messages_after(client, response) -> list[str]:  # type: ignore[no-untyped-def]
    page = client.get(response["Location"])
    return [str(m) for m in page.context["messages"]]


def focus_of(location: str) -> tuple[dict[str, list[str]], str]:
    parts = urlsplit(location)
    return parse_qs(parts.query), parts.fragment


def test_three_results_in_a_row_each_one_request(client, started) -> None:  # type: ignore[no-untyped-def]
    t, rnd, admin = started
    client.force_login(admin)
    scores = {1: (3, 1), 2: (0, 3), 3: (3, 2)}
    for number, (score1, score2) in scores.items():
        response = post(client, t, rnd, number, score1=score1, score2=score2)
        assert response.status_code == 302
        query, fragment = focus_of(response["Location"])
        # On to the next table, whose first box the console focuses.
        assert query == {"round": [str(rnd.pk)], "next": [str(number + 1)]}
        assert fragment == ""  # a fragment would stop the browser's autofocus
        page = client.get(response["Location"])
        assert f"Table {number}: {score1}–{score2} is official." in [
            str(m) for m in page.context["messages"]
        ]
        html = page.content.decode()
        row = re.search(rf'<tr[^>]*id="table-{rnd.pk}-{number + 1}".*?</tr>', html, re.S)
        assert row and re.search(r'name="score1"[^>]*autofocus', row.group(0))
        assert html.count("autofocus") == 1
    for number, (score1, score2) in scores.items():
        match = table(rnd, number).match
        assert (match.result_status, match.score1, match.score2) == (
            ResultStatus.CONFIRMED,
            score1,
            score2,
        )
    assert table(rnd, 4).match.result_status == ResultStatus.NONE


def test_the_redirect_skips_decided_tables_and_ends_on_the_round(client, started) -> None:  # type: ignore[no-untyped-def]
    t, rnd, admin = started
    client.force_login(admin)
    builders.confirm_result(table(rnd, 2), table(rnd, 2).entry1_id)
    response = post(client, t, rnd, 1, score1=3, score2=0)
    assert focus_of(response["Location"])[0]["next"] == ["3"]  # table 2 is decided
    post(client, t, rnd, 4, score1=3, score2=0)
    response = post(client, t, rnd, 3, score1=3, score2=0)
    assert focus_of(response["Location"]) == ({}, f"round-{rnd.pk}")  # nothing left open


@pytest.mark.parametrize(
    "score1,score2,said",
    [
        (2, 1, "the winner must reach 3 points"),
        (3, 3, "both players cannot reach 3 points"),
        (7, 1, "more than the match length, 3"),
        ("", 1, "Type both scores."),
        (-1, 3, "below 0"),
    ],
)
def test_a_wrong_score_is_refused_naming_the_table(client, started, score1, score2, said) -> None:  # type: ignore[no-untyped-def]
    t, rnd, admin = started
    client.force_login(admin)
    response = post(client, t, rnd, 2, score1=score1, score2=score2)
    query, fragment = focus_of(response["Location"])
    assert query == {"round": [str(rnd.pk)], "next": ["2"]} and not fragment  # the same row
    said_now = messages_after(client, response)
    assert len(said_now) == 1
    assert said_now[0].startswith("Table 2: ") and said_now[0].endswith("Nothing was saved.")
    assert said.lower() in said_now[0].lower()
    match = table(rnd, 2).match
    assert match.result_status == ResultStatus.NONE and match.score1 is None
    assert not ResultReport.objects.filter(match=match).exists()


def test_a_stale_row_is_refused(client, started) -> None:  # type: ignore[no-untyped-def]
    t, rnd, admin = started
    client.force_login(admin)
    drawn = result_version(table(rnd, 1))
    # Meanwhile the players report and confirm 3–2.
    builders.confirm_result(table(rnd, 1), table(rnd, 1).entry1_id, loser_points=2)
    response = post(client, t, rnd, 1, version=drawn, score1=0, score2=3, reason="typo")
    said = messages_after(client, response)
    assert said == ["Table 1: Its result was changed meanwhile; check it. Nothing was saved."]
    match = table(rnd, 1).match
    assert (match.score1, match.score2) == (3, 2)
    # A forfeit from the stale row is refused just the same.
    post(client, t, rnd, 1, version=drawn, action="forfeit1")
    assert table(rnd, 1).forfeit_winner is None


def test_forfeits_and_a_double_forfeit(client, started) -> None:  # type: ignore[no-untyped-def]
    t, rnd, admin = started
    client.force_login(admin)
    response = post(client, t, rnd, 1, action="forfeit1")  # player 1 did not come
    assert response.status_code == 302
    first = table(rnd, 1)
    assert first.forfeit_winner == 2 and first.match.forfeit
    assert (first.match.score1, first.match.score2) == (0, 3)
    assert f"Table 1: {first.entry2.player} wins by forfeit." in messages_after(client, response)
    post(client, t, rnd, 2, action="forfeit2", reason="arrived an hour late")
    second = table(rnd, 2)
    assert second.forfeit_winner == 1 and (second.match.score1, second.match.score2) == (3, 0)
    assert ResultReport.objects.filter(match=second.match, reason="arrived an hour late").exists()
    response = post(client, t, rnd, 3, action="both")
    third = table(rnd, 3)
    assert third.forfeit_winner == BOTH_FORFEITED
    assert third.match.state == MatchState.CANCELLED
    assert "Table 3: both players forfeit." in messages_after(client, response)


def test_an_official_result_is_corrected_with_a_reason(client, started) -> None:  # type: ignore[no-untyped-def]
    t, rnd, admin = started
    client.force_login(admin)
    messages_after(client, post(client, t, rnd, 1, score1=3, score2=1))
    refused = post(client, t, rnd, 1, score1=1, score2=3)
    assert messages_after(client, refused) == [
        "Table 1: Correcting an official result needs a reason. Nothing was saved."
    ]
    assert (table(rnd, 1).match.score1, table(rnd, 1).match.score2) == (3, 1)
    post(client, t, rnd, 1, score1=1, score2=3, reason="players swapped on the sheet")
    match = table(rnd, 1).match
    assert (match.score1, match.score2, match.winner) == (1, 3, 2)


def test_a_stranger_is_refused(client, started) -> None:  # type: ignore[no-untyped-def]
    t, rnd, _admin = started
    response = post(client, t, rnd, 1, score1=3, score2=0)
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    client.force_login(UserFactory())
    assert post(client, t, rnd, 1, score1=3, score2=0).status_code == 403
    assert table(rnd, 1).match.result_status == ResultStatus.NONE


def test_no_such_table_and_a_round_not_under_way(client, started) -> None:  # type: ignore[no-untyped-def]
    t, rnd, admin = started
    client.force_login(admin)
    assert (
        client.post(url(t, rnd, 99), {"version": "x", "score1": 3, "score2": 0}).status_code == 404
    )
    for number in (1, 2, 3, 4):
        builders.confirm_result(table(rnd, number), table(rnd, number).entry1_id)
    services.close_round(rnd, by=admin)
    response = post(client, t, rnd, 1, score1=0, score2=3)
    assert messages_after(client, response) == [
        "Table 1: Round 1 is not being played. Nothing was saved."
    ]


def test_a_recorded_match_shows_its_live_score_instead_of_the_boxes(client, started) -> None:  # type: ignore[no-untyped-def]
    t, rnd, admin = started
    client.force_login(admin)
    match = table(rnd, 2).match
    Match.objects.filter(pk=match.pk).update(recorded=True, state=MatchState.PLAYING)
    Game.objects.create(match=match, number=1, winner=1, points=2)
    Game.objects.create(match=match, number=2, score1_before=2, winner=2, points=1)
    Game.objects.create(match=match, number=3, score1_before=2, score2_before=1)  # under way
    html = client.get(reverse("tournaments:console", args=[t.pk])).content.decode()
    row = re.search(rf'<tr[^>]*id="table-{rnd.pk}-2".*?</tr>', html, re.S)
    assert row is not None
    assert re.search(r'class="live-score".*?<strong>2–1</strong>', row.group(0), re.S)
    assert 'name="score1"' not in row.group(0)  # its record gives the result
    assert 'value="forfeit1"' in row.group(0)  # a forfeit stays at hand
    other = re.search(rf'<tr[^>]*id="table-{rnd.pk}-1".*?</tr>', html, re.S)
    assert other and 'name="score1"' in other.group(0) and "live-score" not in other.group(0)


def test_live_scores_cost_one_query_however_many_are_live(client, started) -> None:  # type: ignore[no-untyped-def]
    t, rnd, admin = started
    client.force_login(admin)
    console = reverse("tournaments:console", args=[t.pk])
    counts = []
    for number in (1, 2, 3):
        match = table(rnd, number).match
        Match.objects.filter(pk=match.pk).update(recorded=True, state=MatchState.PLAYING)
        Game.objects.create(match=match, number=1, winner=2, points=1)
        with CaptureQueriesContext(connection) as queries:
            html = client.get(console).content.decode()
        assert html.count('class="live-score"') == number
        counts.append(len(queries))
    assert counts[0] == counts[1] == counts[2]
