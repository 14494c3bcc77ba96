"""Public pages: a federation's tournaments and a tournament's pages (the
overview with the round in play and the top of the standings, each round, the
entrants, standings with tie-breaks, bracket trees), what the organizer's
publication settings let through, and their query counts.  The pages sized for
a large field (pagination, finding a player, a player's page, sizes and caching)
are in ``test_public_pages_sized``."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tests.factories import FederationFactory
from tests.tournaments import builders
from tournaments import brackets, queries, services
from tournaments.models import Pairing, Round, StandingsSnapshot, Tournament, TournamentState
from tournaments.services import visibility as results_rule

pytestmark = pytest.mark.django_db


def page(client, t: Tournament, name: str = "public", *args: object) -> str:  # type: ignore[no-untyped-def]
    """One of the tournament's public pages (``tournaments:<name>``) as text."""
    response = client.get(reverse(f"tournaments:{name}", args=[t.federation.slug, t.slug, *args]))
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def bracket(client, t: Tournament, flight: str = "main") -> str:  # type: ignore[no-untyped-def]
    return section(page(client, t, "public_bracket", flight), "brackets")


def round_page(client, t: Tournament, rnd: Round) -> str:  # type: ignore[no-untyped-def]
    return section(page(client, t, "public_round", rnd.flight, rnd.number), "rounds")


def section(html: str, name: str) -> str:
    start = html.index(f'<section class="part" id="{name}">')
    return html[start : html.index("</section>", start)]


def swiss(n: int, rounds: int, **settings):  # type: ignore[no-untyped-def]
    federation, admin, _d = builders.federation_with_admin()
    t = builders.tournament(
        n, "swiss", federation=federation, by=admin, rounds_planned=rounds, **settings
    )
    return t, admin


# --- The federation's list


def test_the_federation_page_links_to_its_tournaments(client) -> None:  # type: ignore[no-untyped-def]
    federation = FederationFactory()
    html = client.get(reverse("clubs:federation", args=[federation.slug])).content.decode()
    assert reverse("tournaments:public_list", args=[federation.slug]) in html


@pytest.mark.parametrize("count", [2, 10])
def test_the_list_shows_public_tournaments_in_two_queries(
    client, django_assert_num_queries, count
) -> None:  # type: ignore[no-untyped-def]
    federation, admin, discipline = builders.federation_with_admin()
    for k in range(count):
        t = services.create_tournament(
            by=admin,
            federation=federation,
            name=f"Open {k}",
            discipline=discipline,
            format="swiss",
            rounds_planned=3,
        )
        services.set_state(t, TournamentState.REGISTRATION, by=admin)
    services.create_tournament(
        by=admin,
        federation=federation,
        name="Still a draft",
        discipline=discipline,
        format="swiss",
        rounds_planned=3,
    )
    hidden = services.create_tournament(
        by=admin,
        federation=federation,
        name="Members only",
        discipline=discipline,
        format="swiss",
        rounds_planned=3,
        is_public=False,
    )
    services.set_state(hidden, TournamentState.REGISTRATION, by=admin)
    url = reverse("tournaments:public_list", args=[federation.slug])
    with django_assert_num_queries(2):
        html = client.get(url).content.decode()
    assert len(re.findall(rf'href="/f/{federation.slug}/t/open-\d+/"', html)) == count
    assert "Still a draft" not in html and "Members only" not in html


def test_private_federation_and_unpublished_tournaments_are_not_found(client) -> None:  # type: ignore[no-untyped-def]
    t, admin = swiss(4, 2)
    private = FederationFactory(is_public=False)
    assert client.get(reverse("tournaments:public_list", args=[private.slug])).status_code == 404
    services.update_tournament(t, by=admin, is_public=False)
    url = reverse("tournaments:public", args=[t.federation.slug, t.slug])
    assert client.get(url).status_code == 404


# --- A Swiss


def test_a_swiss_page_shows_entries_rounds_results_and_standings(client) -> None:  # type: ignore[no-untyped-def]
    t, admin = swiss(5, 3, tie_breaks=["BH", "SB", "PS"])
    rnd = services.pair_next_round(t, by=admin)
    builders.play_round(rnd, admin)
    snapshot = services.compute_standings(t)
    html = page(client, t)
    entries = section(page(client, t, "public_entries"), "entries")
    for entry in t.entries.select_related("player"):
        assert str(entry.player) in entries
    rounds = section(html, "rounds")
    assert "Round 1" in rounds and "bye" in rounds  # five players: one bye
    for p in rnd.pairings.select_related("match").exclude(match=None):
        assert f"{p.match.score1}–{p.match.score2}" in rounds
        assert reverse("games:match", args=[p.match_id]) in rounds
    standings = section(html, "standings")
    headers = re.findall(r'data-code="([^"]+)"', standings)
    assert headers == ["BH", "SB", "PS"]
    rows = re.findall(r'<td class="num place">([^<]+)<', standings)
    assert rows == [row["place"] for row in snapshot.rows]
    first = snapshot.rows[0]
    values = re.findall(r'<td class="num tb">([^<]+)</td>', standings)[:3]
    assert values == [str(first["tiebreaks"][code]) for code in ("BH", "SB", "PS")]


def test_results_and_standings_follow_the_publication_settings(client) -> None:  # type: ignore[no-untyped-def]
    t, admin = swiss(4, 3, publish_standings=False)
    first = services.pair_next_round(t, by=admin)
    builders.play_round(first, admin)
    snapshot = services.compute_standings(t)
    html = page(client, t)
    assert "No standings are published yet." in html  # computed, not published
    services.publish_standings(snapshot, by=admin)
    assert 'data-flight="main"' in section(page(client, t), "standings")

    # A silent round: its pairings are public, its results not.
    second = services.pair_next_round(t, by=admin, silent=True)
    builders.play_round(second, admin)
    services.compute_standings(t)
    silent_block = round_page(client, t, second)
    assert f'id="round-{second.pk}"' in section(page(client, t), "rounds")  # the round in play
    for p in second.pairings.select_related("match", "entry1__player"):
        assert str(p.entry1.player) in silent_block
        assert f"{p.match.score1}–{p.match.score2}" not in silent_block
    assert "silent round" in silent_block
    # The public standings stay those after round 1 until the organizer publishes.
    assert "After round 1" in section(page(client, t), "standings")
    latest = StandingsSnapshot.objects.get(tournament=t, after_round=2)
    services.publish_standings(latest, by=admin)
    html = page(client, t)
    assert "After round 2" in section(html, "standings")
    assert "silent round" not in section(html, "rounds")
    assert "silent round" not in round_page(client, t, second)

    # Results not published at all; pairings not published at all.
    services.update_tournament(t, by=admin, publish_results=False)
    for rounds in (section(page(client, t), "rounds"), round_page(client, t, first)):
        assert "Result" not in rounds and "–" not in rounds
    services.update_tournament(t, by=admin, publish_pairings=False)
    assert 'id="rounds"' not in page(client, t)
    url = reverse("tournaments:public_round", args=[t.federation.slug, t.slug, "main", 1])
    assert client.get(url).status_code == 404


def test_the_final_standings_are_labelled_so(client) -> None:  # type: ignore[no-untyped-def]
    t, admin = swiss(4, 2)
    for _ in range(2):
        builders.play_round(services.pair_next_round(t, by=admin), admin)
    services.finish_tournament(t, by=admin)
    assert "Final standings" in section(page(client, t), "standings")


@pytest.mark.parametrize("size,rounds", [(4, 1), (16, 3)])
def test_the_swiss_page_costs_the_same_queries_for_any_field(
    client, django_assert_num_queries, size, rounds
) -> None:  # type: ignore[no-untyped-def]
    t, admin = swiss(size, 4)
    for _ in range(rounds):
        builders.play_round(services.pair_next_round(t, by=admin), admin)
    services.start_round(services.pair_next_round(t, by=admin), by=admin)
    services.compute_standings(t)
    url = reverse("tournaments:public", args=[t.federation.slug, t.slug])
    # Tournament, rounds, published standings, entry counts, the round in play's
    # pairings for its progress, its first tables, and the analysed matches' best PRs
    # (one more, the entries shown, only when some match is analysed).
    with django_assert_num_queries(7):
        html = client.get(url).content.decode()
    in_play = Round.objects.filter(tournament=t).order_by("number").last()
    assert html.count('class="table-no"') == Pairing.objects.filter(round=in_play).count()


# --- Brackets


def bracket_event(fmt: str, n: int, **settings):  # type: ignore[no-untyped-def]
    federation, admin, _d = builders.federation_with_admin()
    t = builders.tournament(n, fmt, federation=federation, by=admin, **settings)
    return t, admin


def test_a_knockout_is_drawn_as_a_tree_with_scores(client) -> None:  # type: ignore[no-untyped-def]
    t, admin = bracket_event("single_elimination", 8)
    builders.run_flight_rounds(t, admin)
    services.compute_standings(t)
    html = page(client, t)
    tree = bracket(client, t)
    assert tree.count('<g class="match') == 7  # 4 + 2 + 1
    assert tree.count('<path class="link"') == 6  # each match after round 1 has two feeders
    for column in ("Round 1", "Semi-finals", "Final"):
        assert f">{column}</text>" in tree
    for p in Pairing.objects.filter(round__tournament=t).select_related("match"):
        assert reverse("games:match", args=[p.match_id]) in tree
    # The final: the champion's row is marked, with the score.
    final = Pairing.objects.filter(round__tournament=t).order_by("-round__number").first()
    assert final is not None
    champion = final.entry1 if final.match.winner == 1 else final.entry2
    won = re.findall(r'<g class="side won">.*?<text class="name"[^>]*>([^<]+)', tree, re.S)
    assert str(champion.player) in won or any(
        str(champion.player).startswith(w.rstrip("…")) for w in won
    )
    standings = section(html, "standings")
    assert '<th class="num">Won</th>' in standings
    first_row = re.search(
        r'<td class="num place">1</td>\s*<td class="name"><a [^>]+>([^<]+)<', standings
    )
    assert first_row is not None and first_row.group(1) == str(champion.player)


def test_double_elimination_draws_winners_losers_and_grand_final(client) -> None:  # type: ignore[no-untyped-def]
    t, admin = bracket_event("double_elimination", 6)
    builders.run_flight_rounds(t, admin)
    tree = bracket(client, t)
    sections = re.findall(r'<figure class="bracket" data-section="([^"]+)"', tree)
    assert sections == ["W", "L", "GF"]
    assert "Winners&#x27; bracket" in tree and "Losers&#x27; bracket" in tree
    # The better seed wins everything: the reset of the grand final is not played.
    assert tree.count('class="match void"') == 1


def test_main_with_consolation_and_last_chance_draws_each_flight(client) -> None:  # type: ignore[no-untyped-def]
    t, admin = bracket_event("main_consolation", 8, last_chance=True)
    builders.run_all_flights(t, admin, ["main", "consolation", "last_chance"])
    html = page(client, t)
    flights = re.findall(r'<a href="[^"]+" data-flight="([^"]+)"', section(html, "brackets"))
    assert flights == ["main", "consolation", "last_chance"]
    for flight in flights:
        assert f'<div class="flight" data-flight="{flight}">' in bracket(client, t, flight)
    rounds = section(html, "rounds")
    # Knock-out rounds are named by what they are, each flight to its final (issue 15).
    for title in ("Main flight", "Consolation", "Last chance"):
        assert f"Final · {title}" in rounds and f"Round 1 · {title}" not in rounds


def test_groups_then_knockout(client) -> None:  # type: ignore[no-untyped-def]
    t, admin = bracket_event("groups_knockout", 8, groups=2, qualifiers_per_group=2)
    builders.run_flight_rounds(t, admin)  # the group stage, then the knock-out
    services.compute_standings(t)
    html = page(client, t)
    assert bracket(client, t).count('<g class="match') == 3
    standings = section(html, "standings")
    assert 'data-group="A"' in standings and 'data-group="B"' in standings
    assert "Group A" in standings and 'data-code="DE"' in standings


def test_a_silent_bracket_round_hides_its_scores(client) -> None:  # type: ignore[no-untyped-def]
    t, admin = bracket_event("single_elimination", 4)
    rnd = services.pair_next_round(t, by=admin, silent=True)
    builders.play_round(rnd, admin, close=False)
    tree = bracket(client, t)
    assert 'class="score"' not in tree and "side won" not in tree
    # The final is not paired yet: who reached it is not shown either (only the
    # four first-round sides carry a name and a seed).
    assert tree.count('<text class="seed"') == 4


@pytest.mark.parametrize("size", [4, 16])
def test_the_bracket_page_costs_the_same_queries_for_any_field(
    client, django_assert_num_queries, size
) -> None:  # type: ignore[no-untyped-def]
    t, admin = bracket_event("single_elimination", size)
    builders.play_round(services.pair_next_round(t, by=admin), admin)
    services.compute_standings(t)
    url = reverse("tournaments:public_bracket", args=[t.federation.slug, t.slug, "main"])
    # Tournament, rounds and their pairings (for the visibility rule), and the
    # bracket's entries and pairings.
    with django_assert_num_queries(5):
        html = client.get(url).content.decode()
    assert html.count('<g class="match') == size - 1


# --- The tree's geometry


def side(entry: int, name: str) -> dict:  # type: ignore[type-arg]
    return {"entry": entry, "name": name, "seed": entry, "bye": False}


def test_a_match_sits_between_its_feeders_and_hidden_results_stay_hidden() -> None:
    columns = [
        [
            {
                "slot": "A",
                "index": 0,
                "round": 1,
                "section": "main",
                "entry1": side(1, "One"),
                "entry2": side(4, "Four"),
                "score1": 3,
                "score2": 1,
                "winner": 1,
                "status": "decided",
                "pairing": 10,
                "match": None,
                "feeds_from": [],
            },
            {
                "slot": "B",
                "index": 1,
                "round": 1,
                "section": "main",
                "entry1": side(2, "Two"),
                "entry2": side(3, "Three"),
                "score1": 0,
                "score2": 3,
                "winner": 3,
                "status": "decided",
                "pairing": 11,
                "match": None,
                "feeds_from": [],
            },
        ],
        [
            {
                "slot": "C",
                "index": 0,
                "round": 2,
                "section": "main",
                "entry1": side(1, "One"),
                "entry2": side(3, "Three"),
                "score1": None,
                "score2": None,
                "winner": None,
                "status": "ready",
                "pairing": None,
                "match": None,
                "feeds_from": ["A", "B"],
            },
        ],
    ]
    (drawn,) = brackets.draw_flight(columns)
    a, b, c = drawn.boxes
    assert c.center == (a.center + b.center) // 2 and c.x > a.x == b.x
    assert len(drawn.lines) == 2 and drawn.width == c.x + brackets.BOX_W + brackets.PAD
    assert [s.won for s in b.sides] == [False, True] and b.sides[1].score == 3
    assert [col for _x, col in drawn.columns] == ["Semi-finals", "Final"]

    # What the one visibility rule blanks, the tree does not draw.
    results_rule.hide_bracket_results(columns, {"B"})
    (hidden,) = brackets.draw_flight(columns, hidden=["B"])
    b, c = hidden.boxes[1], hidden.boxes[2]
    assert not b.decided
    assert [s.score for s in b.sides] == [None, None] and not any(s.won for s in b.sides)
    assert c.sides[0].name == "One" and c.sides[1].unknown  # "Three" came from B


def test_bracket_view_of_a_format_without_brackets_is_empty() -> None:
    t, _admin = swiss(4, 2)
    assert queries.bracket_view(t) == []
    assert Round.objects.filter(tournament=t).count() == 0
