"""PR where it shows beside the match page (issue 17): the PR tie-break of the
standings, an event's best PRs, a player's PR over time and per event.

Tournament matches are recorded turn by turn to their end (``play_out``) and
analysed by the product's analyser (``analysis.services.analyse``), so every PR
here is a real one.  A figure over several matches is decisions-weighted (the
errors of all decisions over their number), as the field computes an event's PR.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from analysis import queries as analysis_queries
from analysis import services as analysis_services
from analysis.models import AnalysisState, MatchAnalysis
from clubs.models import Player
from games.models import Match, ResultStatus
from tests.games.helpers import play_out
from tests.ratings.test_services import eager  # noqa: F401 (a fixture)
from tests.tournaments import builders
from tournaments import core, queries, services
from tournaments.models import Pairing, Round, StandingsSnapshot, Tournament

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager")]


@pytest.fixture
def committing(django_capture_on_commit_callbacks: Any) -> Any:
    """Run what is queued on commit (standings, analysis follow-ups) as a worker would."""

    @contextmanager
    def run() -> Iterator[None]:
        with django_capture_on_commit_callbacks(execute=True):
            yield

    return run


def play_recorded_round(rnd: Round, admin: Any, seed: int) -> list[Pairing]:
    """Start the round and record every match turn by turn to its end (official when
    it ends), without analysing it yet."""
    services.start_round(rnd, by=admin)
    pairings = list(rnd.pairings.select_related("match", "entry1", "entry2").order_by("table"))
    for offset, pairing in enumerate(pairings):
        match = pairing.match
        assert match is not None
        Match.objects.filter(pk=match.pk).update(recorded=True)
        match.refresh_from_db()
        play_out(match, seed=seed + offset)
        match.refresh_from_db()
        assert match.result_status == ResultStatus.CONFIRMED
    return pairings


def analyse(pairings: list[Pairing], committing: Any) -> list[MatchAnalysis]:
    done = []
    for pairing in pairings:
        with committing():
            analysis_services.analyse(pairing.match_id)
        analysis = MatchAnalysis.objects.get(match_id=pairing.match_id)
        assert analysis.state == AnalysisState.DONE, analysis.refusal
        done.append(analysis)
    return done


def entry_figures(analyses: list[MatchAnalysis]) -> dict[int, tuple[float, int]]:
    """Each entry's decisions-weighted PR and decisions over ``analyses``, by hand."""
    sums: dict[int, list[float]] = {}
    for analysis in analyses:
        pairing = Pairing.objects.get(match_id=analysis.match_id)
        for entry, pr, decisions in (
            (pairing.entry1_id, analysis.pr1, analysis.decisions1),
            (pairing.entry2_id, analysis.pr2, analysis.decisions2),
        ):
            if pr is None:
                continue
            total = sums.setdefault(entry, [0.0, 0])
            total[0] += pr * decisions
            total[1] += decisions
    return {entry: (errors / count, int(count)) for entry, (errors, count) in sums.items()}


@pytest.fixture
def two_rounds(committing: Any) -> tuple[Tournament, Any, list[MatchAnalysis]]:
    """Four players, PR the only tie-break, two recorded 1-point rounds played and
    analysed (the analysis after each round's results, as the task runs)."""
    federation, admin, _discipline = builders.federation_with_admin()
    t = builders.tournament(
        4, "swiss", federation=federation, by=admin, rounds_planned=3, match_length=1,
        tie_breaks=["PR"], publish_standings=True,
    )  # fmt: skip
    analyses = []
    for number, seed in ((1, 11), (2, 21)):
        with committing():
            rnd = services.pair_next_round(t, by=admin)
            pairings = play_recorded_round(rnd, admin, seed)
            services.close_round(rnd, by=admin)
        assert rnd.number == number
        analyses += analyse(pairings, committing)
    t.refresh_from_db()
    return t, admin, analyses


# --- The PR tie-break


def test_pr_breaks_ties_lowest_first_with_each_players_weighted_pr(two_rounds: Any) -> None:
    t, _admin, analyses = two_rounds
    expected = entry_figures(analyses)
    assert len(expected) == 4 and all(count > 0 for _pr, count in expected.values())
    # The analyses arrived after the results: the snapshot followed by itself.
    snapshot = StandingsSnapshot.objects.get(tournament=t, after_round=2)
    assert snapshot.published_at is not None and snapshot.tie_breaks == ["PR"]
    rows = snapshot.rows
    for row in rows:
        pr, _decisions = expected[row["entry"]]
        assert row["tiebreaks"]["PR"] == pytest.approx(pr)
    # Decisions-weighted, not the mean of the two match PRs: they differ here.
    per_match: dict[int, list[float]] = {}
    for analysis in analyses:
        pairing = Pairing.objects.get(match_id=analysis.match_id)
        per_match.setdefault(pairing.entry1_id, []).append(analysis.pr1)
        per_match.setdefault(pairing.entry2_id, []).append(analysis.pr2)
    assert any(abs(sum(prs) / 2 - expected[e][0]) > 1e-6 for e, prs in per_match.items())
    # Scores 2, 1, 1, 0: the two players on 1 are ordered by their PR, lower first.
    by_score: dict[int, list[dict[str, Any]]] = {}
    for row in rows:
        by_score.setdefault(row["score"], []).append(row)
    assert sorted(by_score) == [0, 1, 2] and len(by_score[1]) == 2
    middle = by_score[1]
    assert middle[0]["tiebreaks"]["PR"] < middle[1]["tiebreaks"]["PR"]
    assert [r["place"] for r in middle] == ["2", "3"]


def test_the_core_weighs_each_match_by_its_decisions() -> None:
    entries = [core.Entry(i, seed=i) for i in (1, 2, 3, 4)]
    results = [
        # 1 beats 3 with PR 2.0 over 300 decisions, then loses to 2 with 10.0 over 100.
        core.MatchResult(1, 1, 3, 1, 5, 2, error_rate_a=2.0, error_rate_b=9.0,
                         decisions_a=300, decisions_b=280),
        core.MatchResult(1, 2, 4, 2, 5, 1, error_rate_a=7.0, error_rate_b=3.0,
                         decisions_a=50, decisions_b=60),
        core.MatchResult(2, 1, 2, 2, 3, 5, error_rate_a=10.0, error_rate_b=4.0,
                         decisions_a=100, decisions_b=120),
    ]  # fmt: skip
    rows = core.compute_standings(entries, results, core.StandingsSettings(tiebreaks=("PR",)))
    pr = {row.entry: row.tiebreaks["PR"] for row in rows}
    # (2.0 x 300 + 10.0 x 100) / 400 = 4.0, where the mean of the two would be 6.0.
    assert pr[1] == pytest.approx(4.0)
    assert pr[2] == pytest.approx((7.0 * 50 + 4.0 * 120) / 170)
    assert (pr[3], pr[4]) == (pytest.approx(9.0), pytest.approx(3.0))
    # Without counts every match weighs 1 (the mean), as before the analysis.
    plain = [core.MatchResult(r.round, r.a, r.b, r.winner, r.points_a, r.points_b,
                              error_rate_a=r.error_rate_a, error_rate_b=r.error_rate_b)
             for r in results]  # fmt: skip
    rows = core.compute_standings(entries, plain, core.StandingsSettings(tiebreaks=("PR",)))
    assert {row.entry: row.tiebreaks["PR"] for row in rows}[1] == pytest.approx(6.0)


def test_standings_cost_the_same_queries_with_analyses(two_rounds: Any) -> None:
    t, _admin, _analyses = two_rounds
    with CaptureQueriesContext(connection) as analysed:
        services.standings_rows(t)
    MatchAnalysis.objects.filter(match__pairing__round__tournament=t).delete()
    with CaptureQueriesContext(connection) as plain:
        rows, _codes, _digest = services.standings_rows(t)
    # The analyses are joined to the pairings: no query more, and none per match.
    assert len(analysed) == len(plain)
    assert all(row["tiebreaks"]["PR"] is None for row in rows)


# --- The event's best PRs


def best_pr_rows(html: str) -> list[tuple[int, str]]:
    section = html[html.index('id="best-pr"') :]
    section = section[: section.index("</section>")]
    return [
        (int(entry), pr)
        for entry, pr in re.findall(
            r'<tr data-entry="(\d+)">.*?<td class="num pr">([^<]+)</td>', section, re.S
        )
    ]


def test_the_event_page_lists_the_best_prs_lowest_first(two_rounds: Any, client: Client) -> None:
    t, _admin, analyses = two_rounds
    expected = entry_figures(analyses)
    html = client.get(reverse("tournaments:public", args=[t.federation.slug, t.slug])).content
    rows = best_pr_rows(html.decode())
    ranked = sorted(expected, key=lambda e: (expected[e][0], -expected[e][1]))
    assert [entry for entry, _pr in rows] == ranked
    assert [pr for _entry, pr in rows] == [f"{expected[e][0]:.2f}" for e in ranked]
    best = queries.best_prs(t, AnonymousUser(), 10)
    assert [(b.entry.pk, b.decisions, b.matches) for b in best] == [
        (e, expected[e][1], 2) for e in ranked
    ]


def test_best_prs_cost_two_queries_whatever_the_field(
    two_rounds: Any, django_assert_num_queries: Any
) -> None:
    t, _admin, _analyses = two_rounds
    with django_assert_num_queries(2):
        assert len(queries.best_prs(t, AnonymousUser(), 10)) == 4
    with django_assert_num_queries(2):
        assert len(queries.best_prs(t, AnonymousUser(), 3)) == 3


def test_a_finished_analysis_renews_the_event_page(two_rounds: Any, committing: Any) -> None:
    t, _admin, analyses = two_rounds
    client = Client()
    address = reverse("tournaments:public", args=[t.federation.slug, t.slug])
    before = best_pr_rows(client.get(address).content.decode())
    assert len(before) == 4
    # The match is analysed again (its record changed): the event's pages move on.
    analysis = analyses[0]
    version = t.public_version
    MatchAnalysis.objects.filter(pk=analysis.pk).update(record_hash="")
    with committing():
        assert analysis_services.analyse(analysis.match_id).startswith("analysed")
    t.refresh_from_db()
    assert t.public_version > version
    # A stored analysis with other figures (saved as the service saves it) shows at once.
    analysis.refresh_from_db()
    analysis.pr1 = analysis.pr2 = 0.0
    with committing():
        analysis.save()
    after = best_pr_rows(client.get(address).content.decode())
    assert after != before
    now = entry_figures([MatchAnalysis.objects.get(pk=a.pk) for a in analyses])
    assert dict(after) == {e: f"{pr:.2f}" for e, (pr, _n) in now.items()}


# --- Silent rounds


def test_a_silent_rounds_analysis_stays_hidden_until_released(
    two_rounds: Any, committing: Any
) -> None:
    t, admin, analyses = two_rounds
    with committing():
        rnd = services.pair_next_round(t, by=admin, silent=True)
        pairings = play_recorded_round(rnd, admin, seed=31)
    silent = analyse(pairings, committing)
    address = reverse("tournaments:public", args=[t.federation.slug, t.slug])
    public_rows = dict(best_pr_rows(Client().get(address).content.decode()))
    before = entry_figures(analyses)
    assert public_rows == {e: f"{pr:.2f}" for e, (pr, _n) in before.items()}
    # The organizer sees the silent round's analysis counted.
    staff = Client()
    staff.force_login(admin)
    staff_rows = dict(best_pr_rows(staff.get(address).content.decode()))
    assert staff_rows == {
        e: f"{pr:.2f}" for e, (pr, _n) in entry_figures(analyses + silent).items()
    }
    assert staff_rows != public_rows
    # A player's page: the silent match is no point of the chart for the public.
    player = Pairing.objects.get(match_id=silent[0].match_id).entry1.player
    page = Client().get(reverse("clubs:player", args=[player.pk])).content.decode()
    assert len(chart_points(page)) == 2
    # Released (its standings published), it counts everywhere.
    snapshot = StandingsSnapshot.objects.get(tournament=t, after_round=3)
    with committing():
        services.publish_standings(snapshot, by=admin)
    released = dict(best_pr_rows(Client().get(address).content.decode()))
    assert released == staff_rows
    page = Client().get(reverse("clubs:player", args=[player.pk])).content.decode()
    assert len(chart_points(page)) == 3


# --- A player's page


def chart_points(html: str) -> list[str]:
    if 'id="pr-chart"' not in html:
        return []
    svg = html[html.index('id="pr-chart"') :]
    svg = svg[: svg.index("</svg>")]
    return re.findall(r"<circle [^>]*>", svg)


def test_a_players_page_charts_one_point_per_analysed_match(two_rounds: Any) -> None:
    t, _admin, analyses = two_rounds
    entry = Pairing.objects.get(match_id=analyses[0].match_id).entry1
    player = Player.objects.get(pk=entry.player_id)
    client = Client()
    html = client.get(reverse("clubs:player", args=[player.pk])).content.decode()
    points = analysis_queries.player_points(player.pk, AnonymousUser())
    assert len(points) == 2 == len(chart_points(html))
    assert points[0].when <= points[1].when
    # Each point links its match; the summary gives the weighted PR over both.
    for point in points:
        assert f'href="{reverse("games:match", args=[point.match_id])}"' in html
    pr, decisions = entry_figures(analyses)[entry.pk]
    assert sum(p.decisions for p in points) == decisions
    summary = html[html.index('class="pr-summary"') :]
    assert f"{pr:.2f}" in summary[: summary.index("</p>")]
    # The events section gives the same PR for this event.
    events = html[html.index('id="events"') :]
    row = events[events.index(f'data-tournament="{t.pk}"') :]
    assert f'<span class="pr">{pr:.2f}</span>' in row[: row.index("</tr>")]


def test_a_players_page_costs_the_same_queries_for_more_analysed_matches(
    two_rounds: Any, committing: Any
) -> None:
    t, admin, analyses = two_rounds
    entry = Pairing.objects.get(match_id=analyses[0].match_id).entry1
    address = reverse("clubs:player", args=[entry.player_id])
    client = Client()
    with CaptureQueriesContext(connection) as two:
        assert len(chart_points(client.get(address).content.decode())) == 2
    with committing():
        rnd = services.pair_next_round(t, by=admin)
        pairings = play_recorded_round(rnd, admin, seed=41)
        services.close_round(rnd, by=admin)
    analyse(pairings, committing)
    with CaptureQueriesContext(connection) as three:
        assert len(chart_points(client.get(address).content.decode())) == 3
    assert len(three) == len(two)


def test_a_player_without_analysed_matches_has_no_pr_section(client: Client) -> None:
    _federation, _admin, _discipline = builders.federation_with_admin()
    player = builders.players(_federation, 1)[0]
    html = client.get(reverse("clubs:player", args=[player.pk])).content.decode()
    assert 'id="pr"' not in html and 'id="pr-chart"' not in html
