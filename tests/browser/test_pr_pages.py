"""PR in Chromium beside the match page (issue 17): an event's standings broken by
PR, its best PRs, and a player's PR over time, as anonymous visitors see them once
the rounds' matches are recorded and analysed."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from analysis.models import MatchAnalysis
from tests.analysis.test_tiebreak_and_player import (
    analyse,
    committing,  # noqa: F401 (a fixture)
    entry_figures,
    play_recorded_round,
)
from tests.ratings.test_services import eager  # noqa: F401 (a fixture)
from tests.tournaments import builders
from tournaments import services
from tournaments.models import Entry, StandingsSnapshot

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("eager"),
]


def test_standings_best_prs_and_a_players_pr_chart(
    live_server: Any,
    page: Any,
    committing: Any,  # noqa: F811
) -> None:
    federation, admin, _discipline = builders.federation_with_admin()
    t = builders.tournament(
        4, "swiss", federation=federation, by=admin, rounds_planned=2, match_length=1,
        tie_breaks=["PR"], publish_standings=True,
    )  # fmt: skip
    analyses: list[MatchAnalysis] = []
    for seed in (11, 21):
        with committing():
            rnd = services.pair_next_round(t, by=admin)
            pairings = play_recorded_round(rnd, admin, seed)
            services.close_round(rnd, by=admin)
        analyses += analyse(pairings, committing)
    figures = entry_figures(analyses)
    best_entry, (best_pr, best_decisions) = min(figures.items(), key=lambda kv: kv[1][0])
    best = Entry.objects.select_related("player").get(pk=best_entry)

    # The event's page lists the best PRs, lowest first.
    page.goto(live_server.url + reverse("tournaments:public", args=[federation.slug, t.slug]))
    first = page.locator("#best-pr tbody tr").first
    expect(first).to_have_attribute("data-entry", str(best_entry))
    expect(first.locator("td.pr")).to_have_text(f"{best_pr:.2f}")
    expect(first).to_contain_text(str(best_decisions))
    expect(page.locator("#best-pr tbody tr")).to_have_count(len(figures))

    # The standings show the PR tie-break of every player.
    page.goto(
        live_server.url + reverse("tournaments:public_standings", args=[federation.slug, t.slug])
    )
    snapshot = StandingsSnapshot.objects.get(tournament=t, after_round=2)
    assert snapshot.tie_breaks == ["PR"]
    table = page.locator("main table").first
    expect(table).to_contain_text("PR")
    for row in snapshot.rows:
        expect(table).to_contain_text(str(Entry.objects.get(pk=row["entry"]).player))

    # The best player's page: one point of the PR chart per analysed match.
    page.goto(live_server.url + reverse("clubs:player", args=[best.player_id]))
    expect(page.locator("#pr")).to_be_visible()
    expect(page.locator("#pr-chart circle")).to_have_count(2)
