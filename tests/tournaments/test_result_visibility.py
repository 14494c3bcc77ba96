"""One result-visibility rule (issue 13, point 5): the public tournament page, the
tournament API (pairings, standings, bracket) and the match page ask
``tournaments.services.visibility`` and give every user the same answer.

``test_silent_rounds`` holds the games surfaces (board, files, games API); this
module holds the tournament surfaces side by side, user by user.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from clubs.models import Role
from tests.factories import UserFactory, grant
from tests.ratings.test_services import eager  # noqa: F401 (a fixture)
from tests.tournaments import builders
from tests.tournaments.test_silent_rounds import (
    api,
    as_user,
    committing,  # noqa: F401 (a fixture)
    event,  # noqa: F401 (a fixture)
    seen_result,
)
from tournaments import services
from tournaments.models import Pairing, Tournament
from tournaments.services import visibility as results_rule

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager")]


def standings_seen(client: Client, t: Tournament) -> dict[str, int | None]:
    """After how many rounds each surface shows the standings (None: no table)."""
    mine = api(client, f"/api/tournaments/{t.pk}/standings/")
    listed = api(client, "/api/standings/", tournament=t.pk).json()["results"]
    html = client.get(reverse("tournaments:public", args=[t.federation.slug, t.slug]))
    caption = re.search(r"After round (\d+)", html.content.decode())
    return {
        "api tournament": mine.json()["after_round"] if mine.status_code == 200 else None,
        "api list": max((s["after_round"] for s in listed), default=None),
        "public page": int(caption.group(1)) if caption else None,
    }


@pytest.mark.parametrize(
    "who, sees",
    [("anonymous", False), ("other_player", False), ("organizer", True), ("arbiter", True)],
)
def test_every_tournament_surface_agrees_on_a_silent_result(
    event: dict[str, Any],  # noqa: F811 (the fixture imported above)
    who: str,
    sees: bool,
) -> None:
    """A silent round, played and closed, its standings not published: the public page,
    the pairings API and the match page hide its result from the public and from a
    player of another table, and show it to the organizer and the arbiter."""
    client = as_user(None if who == "anonymous" else event[who])
    seen = seen_result(client, event["match"], event["t"], event["silent"])
    for surface in ("tournament page", "api pairings", "match page", "api detail"):
        assert seen[surface] is sees, (surface, seen)
    assert results_rule.results_hidden(event["t"], event["silent"], event.get(who)) is not sees
    # The standings of the silent round count its results: the API shows them to the same
    # people, through both its endpoints.  The public page shows the published table to
    # everyone (the organizer previews the next one in the console).
    standings = standings_seen(client, event["t"])
    assert standings["api tournament"] == standings["api list"] == (2 if sees else 1), standings
    assert standings["public page"] == 1, standings


def page_bracket(client: Client, t: Tournament) -> dict[str, dict[str, Any]]:
    """What the public bracket page's tree shows of each slot: how many scores, and which
    of its two players are named."""
    html = client.get(
        reverse("tournaments:public_bracket", args=[t.federation.slug, t.slug, "main"])
    )
    content = html.content.decode()
    boxes: dict[str, dict[str, Any]] = {}
    for chunk in content.split('data-slot="')[1:]:
        slot, _quote, body = chunk.partition('"')
        body = body.split("</svg>")[0]
        names = re.findall(r'class="name" x="26" y="15">([^<]*)<', body)
        boxes[slot] = {
            "scores": len(re.findall(r'class="score"', body)),
            "named": [name != "…" for name in names],
        }
    return boxes


def api_bracket(client: Client, t: Tournament) -> dict[str, dict[str, Any]]:
    columns = api(client, f"/api/tournaments/{t.pk}/bracket/").json()
    return {
        m["slot"]: {
            "scores": sum(m[k] is not None for k in ("score1", "score2")),
            "named": [m[side] is not None for side in ("entry1", "entry2")],
        }
        for column in columns
        for m in column
    }


@pytest.mark.parametrize("hidden_by", ["silent round", "results not published"])
def test_the_public_tree_and_the_bracket_api_hide_the_same(
    committing: Any,  # noqa: F811 (the fixture imported above)
    hidden_by: str,
) -> None:
    """In a knock-out whose first round is hidden, the page's tree and the bracket API
    show the same scores and the same players in every slot, to every user: no score
    of a hidden match, and no player who reached the final through one."""
    federation, admin, _d = builders.federation_with_admin()
    t = builders.tournament(
        4,
        "single_elimination",
        federation=federation,
        by=admin,
        publish_results=hidden_by == "silent round",
    )
    rnd = services.pair_next_round(t, by=admin, silent=hidden_by == "silent round")
    with committing():
        builders.play_round(rnd, admin)
    arbiter = UserFactory()
    grant(arbiter, Role.ARBITER, t)
    pairing = Pairing.objects.filter(round=rnd).select_related("match__player1__user").first()
    assert pairing is not None and pairing.match is not None
    users = {"anonymous": None, "player": pairing.match.player1.user, "arbiter": arbiter}
    final = "M2-1"  # the final of four: not paired while the first round is in play
    final_names = {}
    for who, user in users.items():
        client = as_user(user)
        page, answered = page_bracket(client, t), api_bracket(client, t)
        assert page.keys() == answered.keys() and len(page) == 3, (who, page, answered)
        for slot in page:
            assert page[slot] == answered[slot], (who, slot, page[slot], answered[slot])
        final_names[who] = sum(answered[final]["named"])
    assert final_names["anonymous"] == 0
    assert final_names["arbiter"] == 2
    # A silent round hides each match but from its players; a tournament that does not
    # publish its results hides the whole tree (it would tell who went through).
    assert final_names["player"] == (1 if hidden_by == "silent round" else 0)
