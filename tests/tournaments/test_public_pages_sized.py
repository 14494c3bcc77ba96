"""The public tournament pages sized for people (issue 14): the overview leads with
the round in play and the top of the standings; each round, the full standings and
the entrants come a page at a time; a visitor finds a player by name and lands on
their own page.  Each page costs the same queries for any field, stays small for a
large one, is rendered once per version, answers a reload with 304, and never
shows a cached result the rules hide from the viewer."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core.cache import cache
from django.db.models import Q
from django.test import Client
from django.urls import reverse

from clubs.models import Role
from tests.factories import UserFactory, grant
from tests.ratings.test_services import eager  # noqa: F401 (a fixture)
from tests.tournaments import builders
from tests.tournaments.test_silent_rounds import committing  # noqa: F401 (a fixture)
from tournaments import services
from tournaments.models import Entry, Pairing, Round, Tournament
from tournaments.views import public

pytestmark = pytest.mark.django_db


def url(t: Tournament, name: str, *args: Any) -> str:
    return reverse(f"tournaments:{name}", args=[t.federation.slug, t.slug, *args])


def get(client: Client, address: str, **params: Any) -> str:
    response = client.get(address, params)
    assert response.status_code == 200, (address, response.status_code)
    return str(response.content.decode())


def swiss(
    n: int, played: int, *, start_next: bool = True, **settings: Any
) -> tuple[Tournament, Any]:
    """A Swiss of ``n`` after ``played`` rounds, the next one started, standings computed."""
    federation, admin, _d = builders.federation_with_admin()
    t = builders.tournament(
        n, "swiss", federation=federation, by=admin, rounds_planned=5, **settings
    )
    for _ in range(played):
        builders.play_round(services.pair_next_round(t, by=admin), admin)
    if start_next:
        services.start_round(services.pair_next_round(t, by=admin), by=admin)
    services.compute_standings(t)
    return t, admin


def main(response: Any) -> str:
    """The page's own content (the frame around it carries a fresh CSRF token)."""
    html = str(response.content.decode())
    return html[html.index("<main>") : html.index("</main>")]


def tables_shown(html: str) -> list[int]:
    return [int(n) for n in re.findall(r'<td class="table-no">(\d+)</td>', html)]


# --- Pages of a long list


def test_a_round_comes_a_page_of_tables_at_a_time(client: Client, monkeypatch: Any) -> None:
    monkeypatch.setattr(public, "PAIRINGS_PER_PAGE", 3)
    t, _admin = swiss(14, 1)  # seven tables a round
    in_play = Round.objects.get(tournament=t, number=2)
    overview = get(client, url(t, "public"))
    assert tables_shown(overview) == [1, 2, 3]
    assert f'href="{url(t, "public_round", "main", 2)}?page=2"' in overview
    address = url(t, "public_round", "main", 2)
    assert tables_shown(get(client, address)) == [1, 2, 3]
    second = get(client, address, page=2)
    assert tables_shown(second) == [4, 5, 6]
    assert 'href="?page=3" rel="next"' in second and 'href="?page=1" rel="prev"' in second
    assert "4–6 of 7" in second
    assert tables_shown(get(client, address, page=3)) == [7]
    # A page that cannot exist has no address (nothing made up fills the cache).
    for made_up in (4, 99, 0, -1, "x", "1" * 10):
        assert client.get(address, {"page": made_up}).status_code == 404, made_up
    # The earlier round has its own address, and the overview links every round.
    assert tables_shown(get(client, url(t, "public_round", "main", 1), page=3)) == [7]
    for number in (1, 2):
        assert f'href="{url(t, "public_round", "main", number)}"' in overview
    assert client.get(url(t, "public_round", "main", 3)).status_code == 404
    assert client.get(url(t, "public_round", "consolation", 1)).status_code == 404
    assert Pairing.objects.filter(round=in_play).count() == 7


def test_the_standings_and_the_entrants_come_a_page_at_a_time(
    client: Client, monkeypatch: Any
) -> None:
    monkeypatch.setattr(public, "STANDINGS_PER_PAGE", 4)
    monkeypatch.setattr(public, "ENTRIES_PER_PAGE", 4)
    monkeypatch.setattr(public, "STANDINGS_TOP", 3)
    t, _admin = swiss(10, 2, start_next=False)
    snapshot = t.standings.get(after_round=2)
    names = [row["name"] for row in snapshot.rows]

    def standings_names(html: str) -> list[str]:
        return re.findall(r'<td class="name"><a href="[^"]+">([^<]+)</a>', html)

    overview = get(client, url(t, "public"))
    assert standings_names(overview) == names[:3]
    assert f'href="{url(t, "public_standings")}"' in overview
    pages = [standings_names(get(client, url(t, "public_standings"), page=n)) for n in (1, 2, 3)]
    assert pages == [names[:4], names[4:8], names[8:]]
    assert "After round 2" in get(client, url(t, "public_standings"), page=3)

    entries = [str(e.player) for e in Entry.objects.filter(tournament=t).order_by("seed", "id")]
    shown = [
        re.findall(
            r'<td><a href="/f/[^"]+/player/\d+/">([^<]+)</a>',
            get(client, url(t, "public_entries"), page=n),
        )
        for n in (1, 2, 3)
    ]
    assert shown == [entries[:4], entries[4:8], entries[8:]]


# --- Finding a player, and their page


def test_finding_a_player_opens_their_page(client: Client) -> None:
    t, _admin = swiss(6, 1)
    entry = Entry.objects.filter(tournament=t).select_related("player").first()
    assert entry is not None
    player = entry.player
    player.name_latin, player.name_native = "Zebediah Quill", "Зеведей Квилл"
    player.save()
    find = url(t, "public_find")
    assert f'action="{find}"' in get(client, url(t, "public"))
    for text in ("zebed", "Квилл"):
        response = client.get(find, {"q": text})
        assert response.status_code == 302
        assert response["Location"] == url(t, "public_player", entry.pk)
    # Several players match: a list of them; nobody: say so.
    twins = list(
        Entry.objects.filter(tournament=t).exclude(pk=entry.pk).select_related("player")[:2]
    )
    for k, twin in enumerate(twins):
        twin.player.name_latin = f"Quill Twin {k}"
        twin.player.save()
    several = get(client, find, q="quill")
    found = several[several.index('id="found"') :]
    for one in (entry, *twins):
        assert url(t, "public_player", one.pk) in found
    nobody = get(client, find, q="Nobody-like-this")
    assert "Nobody entered in this tournament" in nobody
    # A player of another tournament is not found here.
    other, _admin = swiss(4, 0, start_next=False)
    assert "Nobody entered" in get(client, url(other, "public_find"), q="Zebediah")


def test_a_players_page_shows_their_table_opponent_record_and_standing(client: Client) -> None:
    t, _admin = swiss(6, 2)
    entry = Entry.objects.filter(tournament=t).select_related("player").order_by("seed").first()
    assert entry is not None
    pairings = list(
        Pairing.objects.filter(Q(entry1=entry) | Q(entry2=entry)).select_related(
            "round", "entry1__player", "entry2__player"
        )
    )
    assert len(pairings) == 3
    html = get(client, url(t, "public_player", entry.pk))
    current = next(p for p in pairings if p.round.number == 3)
    opponent_entry = current.entry2 if current.entry1_id == entry.pk else current.entry1
    now = html[html.index('id="now"') : html.index("</div>", html.index('id="now"'))]
    assert f"Table {current.table}" in now and str(opponent_entry.player) in now
    assert url(t, "public_player", opponent_entry.pk) in now
    record = html[html.index('id="record"') : html.index("</table>", html.index('id="record"'))]
    assert [int(n) for n in re.findall(r'<tr data-round="(\d+)"', record)] == [1, 2, 3]
    assert record.count('class="won"') + record.count('class="lost"') == 2  # rounds 1 and 2
    standing = next(row for row in t.standings.get(after_round=2).rows if row["entry"] == entry.pk)
    assert f"Place {standing['place']}" in html
    assert client.get(url(t, "public_player", entry.pk + 1000)).status_code == 404


# --- Queries constant in the field size, a fixed size for a large field


PAGES = {
    # page: (URL name and arguments, queries cold, queries when its fragment is cached)
    # Tournament, rounds, published standings, entry counts, the round in play's
    # pairings for its progress, its first tables, and the best PRs (one more, their
    # entries, only when some match is analysed).
    "overview": (("public",), 7, 1),
    # Tournament, rounds, a page of tables.
    "round": (("public_round", "main", 3), 3, 1),
    # Tournament, rounds, published standings, the round in play's pairings.
    "standings": (("public_standings",), 4, 1),
    # Tournament, entry counts, a page of entries.
    "entries": (("public_entries",), 3, 1),
    # Tournament, the entry, its pairings, published standings, and their rows (read
    # once per snapshot in each process, queries.latest_standing_of).
    "player": (("public_player",), 5, 2),
}


@pytest.mark.parametrize("size", [4, 24])
def test_every_page_costs_the_same_queries_for_any_field(
    client: Client, django_assert_num_queries: Any, size: int
) -> None:
    t, _admin = swiss(size, 2)
    entry = Entry.objects.filter(tournament=t).order_by("seed").first()
    assert entry is not None
    for name, ((route, *args), cold, warm) in PAGES.items():
        address = url(t, route, *(args or ([entry.pk] if name == "player" else [])))
        with django_assert_num_queries(cold):
            first = client.get(address)
        assert first.status_code == 200, name
        with django_assert_num_queries(warm):
            again = client.get(address)
        assert main(again) == main(first), name
        # A reload with the page's ETag: 304, as cheap as a cached page.
        with django_assert_num_queries(warm):
            reload = client.get(address, HTTP_IF_NONE_MATCH=first["ETag"])
        assert reload.status_code == 304 and not reload.content, name


def test_no_page_grows_with_the_field(client: Client) -> None:
    """200 players fill every page (50 tables of a round, 100 rows of the standings and
    of the entrants): a larger field only adds pages, so these sizes bound a 1,000-player
    Swiss's pages too."""
    t, _admin = swiss(200, 1)
    entry = Entry.objects.filter(tournament=t).order_by("seed").first()
    assert entry is not None
    sizes = {
        "overview": len(get(client, url(t, "public"))),
        "round": len(get(client, url(t, "public_round", "main", 2), page=2)),
        "standings": len(get(client, url(t, "public_standings"))),
        "entries": len(get(client, url(t, "public_entries"))),
        "player": len(get(client, url(t, "public_player", entry.pk))),
    }
    assert tables_shown(get(client, url(t, "public_round", "main", 2), page=2)) == list(
        range(51, 101)
    )
    for name, size in sizes.items():
        assert size < 200_000, (name, size)
    assert sizes["standings"] < 80_000 and sizes["round"] < 60_000, sizes


# --- Rendered once per version, never showing what the viewer may not see


@pytest.mark.usefixtures("eager")
def test_a_new_result_makes_a_new_page_and_a_new_etag(client: Client, committing: Any) -> None:  # noqa: F811 (the fixture imported above)
    """A result confirmed: the task that follows it moves the tournament's version, and
    the next request renders the page anew under a new ETag."""
    t, admin = swiss(4, 1)
    address = url(t, "public_round", "main", 2)
    first = client.get(address)
    assert first["Cache-Control"] == "private, no-cache"
    pairing = (
        Pairing.objects.filter(round__tournament=t, round__number=2).select_related("match").first()
    )
    assert pairing is not None
    with committing():
        builders.override_result(pairing, builders.higher_seed(pairing), admin)
    pairing.match.refresh_from_db()
    changed = client.get(address, HTTP_IF_NONE_MATCH=first["ETag"])
    assert changed.status_code == 200 and changed["ETag"] != first["ETag"]
    score = f"{pairing.match.score1}–{pairing.match.score2}"
    assert score in changed.content.decode() and score not in first.content.decode()


def test_a_cached_page_never_shows_a_hidden_result_to_another_viewer() -> None:
    """A silent round: the arbiter's and a player's renderings are cached, and still the
    public sees no result of it, and the player sees only their own."""
    t, admin = swiss(4, 1, start_next=False)
    silent = services.pair_next_round(t, by=admin, silent=True)
    builders.play_round(silent, admin, close=False)
    arbiter = UserFactory()
    grant(arbiter, Role.ARBITER, t)
    mine, theirs = list(silent.pairings.select_related("match", "entry1__player").order_by("table"))
    player = mine.entry1.player.user
    # A result shown: its score, linked to its match (side 1 first, as on the player
    # page of side 1).
    shown = {
        p.pk: f'href="{reverse("games:match", args=[p.match_id])}">{p.match.score1}–{p.match.score2}<'
        for p in (mine, theirs)
    }

    def seen(user: Any, address: str) -> set[int]:
        client = Client()
        if user is not None:
            client.force_login(user)
        html = get(client, address)
        return {pk for pk, marker in shown.items() if marker in html}

    round_address = url(t, "public_round", "main", 2)
    player_address = url(t, "public_player", mine.entry1_id)
    for address in (round_address, player_address, url(t, "public")):
        assert seen(arbiter, address) == (
            {mine.pk, theirs.pk} if address != player_address else {mine.pk}
        )
        assert seen(player, address) == {mine.pk}
        assert seen(None, address) == set()
        assert seen(UserFactory(), address) == set()


# --- Entrants while registering, brackets by flight and by section


def test_while_registering_the_overview_leads_with_the_entrants(
    client: Client, monkeypatch: Any
) -> None:
    monkeypatch.setattr(public, "ENTRIES_PER_PAGE", 3)
    federation, admin, _d = builders.federation_with_admin()
    t = builders.tournament(
        5, "swiss", federation=federation, by=admin, start=False, rounds_planned=3
    )
    overview = get(client, url(t, "public"))
    assert overview.index('id="entries"') < overview.index('id="standings"')
    entries = overview[overview.index('id="entries"') :]
    assert entries.count("/player/") == 3 and "(5)" in entries
    assert f'href="{url(t, "public_entries")}?page=2"' in entries
    assert "No round is paired yet." in overview


def test_each_flight_has_its_bracket_page_and_a_large_one_comes_by_section(
    client: Client, monkeypatch: Any
) -> None:
    federation, admin, _d = builders.federation_with_admin()
    t = builders.tournament(6, "double_elimination", federation=federation, by=admin)
    builders.run_flight_rounds(t, admin)
    address = url(t, "public_bracket", "main")
    whole = get(client, address)
    sections = re.findall(r'<figure class="bracket" data-section="([^"]+)"', whole)
    assert sections == ["W", "L", "GF"]
    # A bracket drawn whole has no sections or parts to ask for.
    assert client.get(address, {"part": 2}).status_code == 404
    assert client.get(address, {"section": "L"}).status_code == 404
    assert f'href="{address}"' in get(client, url(t, "public"))
    assert client.get(url(t, "public_bracket", "consolation")).status_code == 404
    swiss_event, _admin = swiss(4, 0, start_next=False)
    assert client.get(url(swiss_event, "public_bracket", "main")).status_code == 404

    monkeypatch.setattr(public, "BRACKET_SPLIT_MATCHES", 2)
    cache.clear()  # the threshold is the code's, not a part of the pages' keys
    for asked, shown in (("", "W"), ("L", "L"), ("GF", "GF")):
        html = get(client, address, section=asked)
        assert re.findall(r'<figure class="bracket" data-section="([^"]+)"', html) == [shown]
        links = re.findall(r'href="\?section=([^"&]+)"', html)
        assert sorted(links) == sorted({"W", "L", "GF"} - {shown}), (asked, links)
    # A section or part that does not exist has no address (nothing made up is cached).
    for made_up in ({"section": "nonsense"}, {"part": 99}, {"part": "x"}):
        assert client.get(address, made_up).status_code == 404, made_up


def test_a_large_knockout_comes_a_part_of_the_draw_at_a_time(
    client: Client, monkeypatch: Any
) -> None:
    """Sixteen players, at most six matches a page: four parts under two first-round
    matches each (two matches, then the one they feed), then the last rounds."""
    monkeypatch.setattr(public, "BRACKET_SPLIT_MATCHES", 6)
    federation, admin, _d = builders.federation_with_admin()
    t = builders.tournament(16, "single_elimination", federation=federation, by=admin)
    builders.play_round(services.pair_next_round(t, by=admin), admin)
    address = url(t, "public_bracket", "main")
    slots: list[str] = []
    for part in range(1, 6):
        html = get(client, address, section="main", part=part)
        tree = html[html.index('<section class="part" id="brackets">') :]
        boxes = re.findall(r'data-slot="([^"]+)"', tree)
        titles = re.findall(r'<text class="col" [^>]*>([^<]+)</text>', tree)
        assert len(boxes) == 3, (part, boxes)
        if part < 5:
            assert titles == ["Round 1", "Round 2"], (part, titles)
            assert f'href="?section=main&amp;part={part + 1}"' in html or part == 4
        else:
            assert titles == ["Semi-finals", "Final"], titles
            assert "Last rounds" in html
        slots += boxes
    assert len(set(slots)) == 15
    # Past the last part, or a part of a bracket drawn whole: no such page.
    assert client.get(address, {"section": "main", "part": 6}).status_code == 404
