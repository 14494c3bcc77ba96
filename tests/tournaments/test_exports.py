"""The director's files (standings, pairings, entry list as CSV and XLSX), the public's
share of them, and the printable results sheet of the whole event (issue 15)."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from openpyxl import load_workbook

from clubs.models import Player, Role
from games.models import ResultStatus
from tests.factories import ClubFactory, MembershipFactory, UserFactory, grant
from tests.tournaments import builders
from tournaments import services
from tournaments.models import Entry, EntryStatus, Round, StandingsSnapshot, Tournament

pytestmark = pytest.mark.django_db


def as_user(user: Any) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    if user is not None:
        client.force_login(user)
    return client


def read_csv(response: Any) -> list[list[str]]:
    body = b"".join(response.streaming_content) if response.streaming else response.content
    assert body.startswith(b"\xef\xbb\xbf"), "Excel needs the byte order mark"
    return list(csv.reader(io.StringIO(body[3:].decode("utf-8")), delimiter=";"))


def read_xlsx(response: Any) -> list[list[Any]]:
    book = load_workbook(io.BytesIO(response.content))
    sheet = book.worksheets[0]
    return [list(row) for row in sheet.iter_rows(values_only=True)]


def xlsx_cells(response: Any) -> list[list[Any]]:
    book = load_workbook(io.BytesIO(response.content))
    return [list(row) for row in book.worksheets[0].iter_rows()]


def swiss(n: int, **settings: Any) -> tuple[Tournament, Any]:
    """A Swiss of ``n`` started, round 1 played and closed, its standings computed."""
    federation, admin, _discipline = builders.federation_with_admin()
    t = builders.tournament(
        n, "swiss", federation=federation, by=admin, rounds_planned=3, **settings
    )
    builders.play_round(services.pair_next_round(t, by=admin), admin)
    services.compute_standings(t)
    return t, admin


def console_url(name: str, t: Tournament, fmt: str, *extra: Any) -> str:
    return reverse(f"tournaments:{name}", args=[t.pk, *extra, fmt])


# --- The standings


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_the_console_standings_file_is_the_latest_snapshot_with_its_tiebreaks(fmt: str) -> None:
    t, admin = swiss(6)
    snapshot = StandingsSnapshot.objects.get(tournament=t)
    response = as_user(admin).get(console_url("standings_file", t, fmt))
    assert response.status_code == 200
    assert response["Content-Disposition"] == (
        f'attachment; filename="{t.slug}-standings-{snapshot.after_round}.{fmt}"'
    )
    rows = read_csv(response) if fmt == "csv" else read_xlsx(response)
    header, body = rows[0], rows[1:]
    codes = list(snapshot.tie_breaks)
    assert codes, "a Swiss has tie-breaks"
    assert header == ["Place", "Player", "Score", *codes, "withdrawn"]
    assert [row[1] for row in body] == [row["name"] for row in snapshot.rows]
    for line, stored in zip(body, snapshot.rows, strict=True):
        place, score = (line[0], float(line[2])) if fmt == "csv" else (line[0], line[2])
        assert str(place) == str(stored["place"])
        assert score == stored["score"]
        for code, value in zip(codes, line[3 : 3 + len(codes)], strict=True):
            expected = stored["tiebreaks"].get(code)
            if expected is None:
                assert value in ("", None)
            else:
                assert float(value) == pytest.approx(expected, abs=0.005)


def test_the_console_standings_include_unpublished_ones_the_public_file_does_not() -> None:
    t, admin = swiss(4, publish_standings=False)
    snapshot = StandingsSnapshot.objects.get(tournament=t)
    assert snapshot.published_at is None
    public_url = reverse(
        "tournaments:public_standings_file", args=[t.federation.slug, t.slug, "csv"]
    )
    assert as_user(None).get(public_url).status_code == 404
    assert as_user(admin).get(public_url).status_code == 404  # the public file: published only
    assert as_user(admin).get(console_url("standings_file", t, "csv")).status_code == 200
    services.publish_standings(snapshot, by=admin)
    rows = read_csv(as_user(None).get(public_url))
    assert [row[1] for row in rows[1:]] == [row["name"] for row in snapshot.rows]


def test_no_standings_yet_is_a_404_and_an_unknown_format_too() -> None:
    federation, admin, _discipline = builders.federation_with_admin()
    t = builders.tournament(4, "swiss", federation=federation, by=admin, rounds_planned=2)
    client = as_user(admin)
    assert client.get(console_url("standings_file", t, "csv")).status_code == 404
    unknown = reverse("tournaments:standings_file", args=[t.pk, "csv"]).replace(".csv", ".pdf")
    assert client.get(unknown).status_code == 404


# --- Who may download


def test_a_stranger_cannot_download_the_directors_files() -> None:
    t, admin = swiss(4)
    rnd = Round.objects.get(tournament=t)
    urls = [
        console_url("standings_file", t, "csv"),
        console_url("entries_file", t, "xlsx"),
        console_url("pairings_file", t, "csv", rnd.pk),
        reverse("tournaments:print_results", args=[t.pk]),
    ]
    stranger = UserFactory()
    player = Entry.objects.filter(tournament=t).select_related("player__user").first()
    assert player is not None
    for url in urls:
        assert as_user(stranger).get(url).status_code == 403, url
        # A player of the tournament is no director either.
        assert as_user(player.player.user).get(url).status_code == 403, url
        anonymous = as_user(None).get(url)
        assert anonymous.status_code == 302 and "/accounts/" in anonymous["Location"], url
    organizer = UserFactory()
    grant(organizer, Role.ORGANIZER, t)
    for url in urls:
        assert as_user(organizer).get(url).status_code == 200, url
    # Another tournament's round is not this one's.
    other, _other_admin = swiss(4)
    other_round = Round.objects.get(tournament=other)
    assert (
        as_user(admin).get(console_url("pairings_file", t, "csv", other_round.pk)).status_code
        == 404
    )


# --- A round's pairings; a silent round's results stay hidden from the public


def silent_round(n: int = 4) -> tuple[Tournament, Any, Round]:
    t, admin = swiss(n)
    silent = services.pair_next_round(t, by=admin, silent=True)
    builders.play_round(silent, admin, close=False)
    return t, admin, silent


def test_the_directors_pairings_file_has_every_result() -> None:
    t, admin, silent = silent_round()
    pairings = list(silent.pairings.select_related("match", "entry1__player", "entry2__player"))
    rows = read_csv(as_user(admin).get(console_url("pairings_file", t, "csv", silent.pk)))
    assert rows[0] == [
        "Table",
        "Player 1",
        "Player 2",
        "Points of player 1",
        "Points of player 2",
        "Winner",
        "Result",
    ]
    by_table = {int(row[0]): row for row in rows[1:]}
    assert sorted(by_table) == sorted(p.table for p in pairings)
    for p in pairings:
        row = by_table[p.table]
        assert row[1] == str(p.entry1.player) and row[2] == str(p.entry2.player)
        assert p.match.result_status == ResultStatus.CONFIRMED
        assert (int(row[3]), int(row[4])) == (p.match.score1, p.match.score2)
        winner = p.entry1.player if p.match.winner == 1 else p.entry2.player
        assert row[5] == str(winner)


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_the_public_pairings_file_hides_a_silent_rounds_results(fmt: str) -> None:
    t, _admin, silent = silent_round()
    url = reverse(
        "tournaments:public_pairings_file",
        args=[t.federation.slug, t.slug, silent.flight, silent.number, fmt],
    )
    response = as_user(None).get(url)
    assert response.status_code == 200
    rows = read_csv(response) if fmt == "csv" else read_xlsx(response)
    assert len(rows) == 1 + silent.pairings.count()
    for row in rows[1:]:
        assert row[1] and row[2], "the pairings themselves are public"
        assert all(cell in ("", None) for cell in row[3:]), row
    # The first round is not silent: its results are in the public file.
    first = Round.objects.get(tournament=t, number=1)
    url_first = reverse(
        "tournaments:public_pairings_file",
        args=[t.federation.slug, t.slug, first.flight, first.number, "csv"],
    )
    shown = read_csv(as_user(None).get(url_first))
    assert all(row[3] and row[4] and row[5] for row in shown[1:])


def test_the_public_pairings_file_follows_the_pages_rules() -> None:
    t, admin = swiss(4)
    rnd = Round.objects.get(tournament=t)
    args = [t.federation.slug, t.slug, rnd.flight, rnd.number, "csv"]
    url = reverse("tournaments:public_pairings_file", args=args)
    assert as_user(None).get(url).status_code == 200
    missing = reverse("tournaments:public_pairings_file", args=[*args[:3], 9, "csv"])
    assert as_user(None).get(missing).status_code == 404
    services.update_tournament(t, by=admin, publish_pairings=False)
    assert as_user(None).get(url).status_code == 404
    services.update_tournament(t, by=admin, publish_pairings=True, publish_results=False)
    rows = read_csv(as_user(None).get(url))
    assert all(cell == "" for row in rows[1:] for cell in row[3:])


# --- The entry list


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_the_entry_list_has_seed_name_club_rating_status_and_check_in(fmt: str) -> None:
    federation, admin, _discipline = builders.federation_with_admin()
    t = builders.tournament(
        4, "swiss", federation=federation, by=admin, start=False, rounds_planned=2
    )
    services.set_state(t, "check_in", by=admin)
    entries = list(Entry.objects.filter(tournament=t).select_related("player").order_by("id"))
    club = ClubFactory(federation=federation, name="Nardy Club Baku")
    MembershipFactory(player=entries[0].player, club=club)
    services.check_in(entries[0], by=admin)
    services.withdraw(entries[3], by=admin)
    response = as_user(admin).get(console_url("entries_file", t, fmt))
    rows = read_csv(response) if fmt == "csv" else read_xlsx(response)
    header = rows[0]
    assert header == [
        "Seed",
        "Name",
        "Name (Latin)",
        "Club",
        "Rating",
        "Status",
        "checked in",
    ]
    by_latin = {row[2]: row for row in rows[1:]}
    assert len(by_latin) == 4
    first = by_latin[entries[0].player.name_latin]
    assert first[1] == entries[0].player.name_native
    assert first[3] == "Nardy Club Baku"
    assert first[5] == "checked in" and first[6] == "yes"
    rating = float(first[4]) if fmt == "csv" else first[4]
    assert rating == pytest.approx(entries[0].rating)
    assert by_latin[entries[3].player.name_latin][5] == "withdrawn"
    assert by_latin[entries[1].player.name_latin][6] in ("", None)
    assert Entry.objects.get(pk=entries[0].pk).status == EntryStatus.CHECKED_IN


def test_a_name_that_looks_like_a_formula_stays_text() -> None:
    federation, admin, _discipline = builders.federation_with_admin()
    t = builders.tournament(
        4, "swiss", federation=federation, by=admin, start=False, rounds_planned=2
    )
    evil = Entry.objects.filter(tournament=t).select_related("player").first()
    assert evil is not None
    Player.objects.filter(pk=evil.player_id).update(
        name_native='=HYPERLINK("http://x.example","click")', name_latin="@SUM(1+1)"
    )
    rows = read_csv(as_user(admin).get(console_url("entries_file", t, "csv")))
    line = next(row for row in rows[1:] if "HYPERLINK" in row[1])
    assert line[1].startswith("'=") and line[2] == "'@SUM(1+1)"
    cells = xlsx_cells(as_user(admin).get(console_url("entries_file", t, "xlsx")))
    cell = next(row[1] for row in cells[1:] if "HYPERLINK" in str(row[1].value))
    assert cell.data_type == "s" and cell.value.startswith("=HYPERLINK")


# --- The printable results sheet


def test_the_results_sheet_prints_every_rounds_results_and_the_standings() -> None:
    t, admin, silent = silent_round()
    response = as_user(admin).get(reverse("tournaments:print_results", args=[t.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert "size: A4" in html, "the shared print styles"
    assert html.count('class="round-results"') == 2
    for p in Round.objects.get(pk=silent.pk).pairings.select_related("match", "entry1__player"):
        # The director sees the silent round's scores on the sheet.
        assert f"{p.match.score1}–{p.match.score2}" in html
        assert str(p.entry1.player) in html
    snapshot = StandingsSnapshot.objects.filter(tournament=t).order_by("-after_round").first()
    assert snapshot is not None
    assert 'id="standings"' in html and snapshot.rows[0]["name"] in html
    assert "Final standings" not in html  # still running


def test_the_console_links_every_file() -> None:
    t, admin = swiss(4)
    rnd = Round.objects.get(tournament=t)
    html = as_user(admin).get(reverse("tournaments:console", args=[t.pk])).content.decode()
    for url in (
        console_url("standings_file", t, "csv"),
        console_url("standings_file", t, "xlsx"),
        console_url("entries_file", t, "csv"),
        console_url("pairings_file", t, "xlsx", rnd.pk),
        reverse("tournaments:print_results", args=[t.pk]),
    ):
        assert f'href="{url}"' in html, url


# --- A fixed number of queries whatever the field


def _queries(client: Client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200, url
    return len(captured.captured_queries)


def _costs(n: int) -> dict[str, int]:
    t, admin, silent = silent_round(n)
    staff, public = as_user(admin), as_user(None)
    slug = [t.federation.slug, t.slug]
    services.publish_standings(StandingsSnapshot.objects.get(tournament=t), by=admin)
    return {
        "standings": _queries(staff, console_url("standings_file", t, "xlsx")),
        "entries": _queries(staff, console_url("entries_file", t, "csv")),
        "pairings": _queries(staff, console_url("pairings_file", t, "csv", silent.pk)),
        "results": _queries(staff, reverse("tournaments:print_results", args=[t.pk])),
        "public standings": _queries(
            public, reverse("tournaments:public_standings_file", args=[*slug, "csv"])
        ),
        "public pairings": _queries(
            public,
            reverse(
                "tournaments:public_pairings_file",
                args=[*slug, silent.flight, silent.number, "xlsx"],
            ),
        ),
    }


# The session and its user, the tournament (and the round), then what the file shows.
QUERIES = {
    "standings": 5,
    "entries": 6,
    "pairings": 6,
    "results": 7,
    "public standings": 2,
    "public pairings": 3,
}


def test_every_file_costs_the_same_queries_for_any_field() -> None:
    small, large = _costs(4), _costs(16)
    assert small == large == QUERIES
