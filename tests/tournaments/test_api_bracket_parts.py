"""The bracket API comes a part at a time when it is large (issue 14): its answer holds
``brackets.SPLIT_MATCHES`` matches at most, whatever the field, in the shape of a whole
bracket (a list of columns), with headers saying which part it is and where the others are."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client

from tests.tournaments import builders
from tournaments import brackets, services
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


def address(t: Tournament) -> str:
    return f"/api/tournaments/{t.pk}/bracket/"


def ask(client: Client, t: Tournament, status: int = 200, **params: Any) -> Any:
    response = client.get(address(t), params, HTTP_ACCEPT="application/json")
    assert response.status_code == status, response.content
    return response


def slots(columns: list[list[dict[str, Any]]]) -> list[str]:
    return [m["slot"] for column in columns for m in column]


def knockout(n: int, **pairing: Any) -> tuple[Tournament, Any]:
    """A single elimination of ``n`` players with its first round paired and played,
    and its admin."""
    federation, admin, _d = builders.federation_with_admin()
    t = builders.tournament(n, "single_elimination", federation=federation, by=admin)
    builders.play_round(services.pair_next_round(t, by=admin, **pairing), admin)
    return t, admin


def test_a_large_knockout_comes_a_part_at_a_time(client: Client, monkeypatch: Any) -> None:
    """Sixteen players, six matches an answer at most: four parts under two first-round
    matches each (two matches and the one they feed), then the last rounds."""
    monkeypatch.setattr(brackets, "SPLIT_MATCHES", 6)
    t, _admin = knockout(16)
    first = ask(client, t)
    assert (first["Bracket-Part"], first["Bracket-Parts"]) == ("1", "5")
    assert first["Bracket-Section"] == "main" and first["Bracket-Sections"] == "main"
    assert re.fullmatch(
        r'<http://testserver/api/tournaments/\d+/bracket/\?part=2>; rel="next"', first["Link"]
    )
    # Without ?part (or ?section), part 1 of the first section.
    assert (
        first.json()
        == ask(client, t, part=1).json()
        == ask(client, t, section="main", part=1).json()
    )
    seen: list[str] = []
    for part in range(1, 6):
        response = ask(client, t, part=part)
        columns = response.json()
        assert 0 < len(slots(columns)) <= 6, (part, columns)
        assert response["Bracket-Part"] == str(part)
        assert ('rel="next"' in response.get("Link", "")) == (part < 5)
        assert ('rel="prev"' in response.get("Link", "")) == (part > 1)
        seen += slots(columns)
    # Every match of the bracket comes in exactly one part; the last part holds the final.
    assert len(seen) == len(set(seen)) == 15
    last = ask(client, t, part=5).json()
    final = last[-1]
    assert len(final) == 1 and final[0]["winner_to"] is None and final[0]["round"] == 4
    # Past the last part: 404 naming the parts; a part that is no number from 1: 400.
    beyond = ask(client, t, 404, part=6)
    assert "1 to 5" in beyond.json()["detail"]
    for made_up in ("0", "x", "-1", "1.5"):
        assert "part" in ask(client, t, 400, part=made_up).json(), made_up


def test_a_bracket_within_the_bound_comes_whole_as_before(client: Client) -> None:
    t, _admin = knockout(16)
    whole = ask(client, t)
    assert [len(column) for column in whole.json()] == [8, 4, 2, 1]
    assert (whole["Bracket-Part"], whole["Bracket-Parts"]) == ("1", "1")
    assert "Bracket-Section" not in whole and "Link" not in whole
    assert ask(client, t, part=1).json() == whole.json()
    ask(client, t, 404, part=2)


def test_a_large_double_elimination_comes_a_section_then_a_part_at_a_time(
    client: Client, monkeypatch: Any
) -> None:
    monkeypatch.setattr(brackets, "SPLIT_MATCHES", 2)
    federation, admin, _d = builders.federation_with_admin()
    t = builders.tournament(6, "double_elimination", federation=federation, by=admin)
    builders.run_flight_rounds(t, admin)
    first = ask(client, t)
    assert first["Bracket-Section"] == "W" and first["Bracket-Sections"] == "W, L, GF"
    seen: list[str] = []
    for section in ("W", "L", "GF"):
        parts = int(ask(client, t, section=section)["Bracket-Parts"])
        for part in range(1, parts + 1):
            columns = ask(client, t, section=section, part=part).json()
            assert {m["section"] for column in columns for m in column} == {section}
            seen += slots(columns)
        ask(client, t, 404, section=section, part=parts + 1)
    monkeypatch.setattr(brackets, "SPLIT_MATCHES", 10_000)
    assert len(seen) == len(set(seen)) == len(slots(ask(client, t).json()))
    ask(client, t, 404, section="nonsense", part=1)


def test_each_part_has_its_etag_and_a_reload_that_holds_it_is_304(
    client: Client, monkeypatch: Any
) -> None:
    monkeypatch.setattr(brackets, "SPLIT_MATCHES", 6)
    t, admin = knockout(16)
    one, two = ask(client, t, part=1), ask(client, t, part=2)
    assert one["ETag"] and two["ETag"] and one["ETag"] != two["ETag"]
    assert client.get(address(t), {"part": 2}, HTTP_IF_NONE_MATCH=two["ETag"]).status_code == 304
    # A change of the tournament is a new version of every part.
    services.pair_next_round(t, by=admin)
    assert client.get(address(t), {"part": 2}, HTTP_IF_NONE_MATCH=two["ETag"]).status_code == 200


def test_silent_results_stay_hidden_in_every_part(client: Client, monkeypatch: Any) -> None:
    monkeypatch.setattr(brackets, "SPLIT_MATCHES", 6)
    t, admin = knockout(16, silent=True)
    manager = Client()
    manager.force_login(admin)
    for part in range(1, 6):
        seen_by_admin = slots_played(ask(manager, t, part=part).json())
        seen_by_anyone = slots_played(ask(client, t, part=part).json())
        assert seen_by_admin.keys() == seen_by_anyone.keys()
        assert all(m["winner"] and m["score1"] is not None for m in seen_by_admin.values())
        assert all(
            m["winner"] is None and m["score1"] is None and m["score2"] is None
            for m in seen_by_anyone.values()
        )
        # Nobody who went through a silent match shows in the next round.
        later = [m for column in ask(client, t, part=part).json()[1:] for m in column]
        assert all(m["entry1"] is None and m["entry2"] is None for m in later), later
    assert slots_played(ask(client, t, part=1).json())


def slots_played(columns: list[list[dict[str, Any]]]) -> dict[str, dict[str, Any]]:
    return {m["slot"]: m for column in columns for m in column if m["pairing"]}


# The one test here with the real bound: 300 players, not 1,000, because building a
# field of 1,000 through the services takes about ten seconds.  Its parts are as large
# as a 1,000-player draw's (a part holds SPLIT_MATCHES matches at most, whatever the
# field: 44 KB each there, against 350 KB for the whole draw).
FIELD = 300


def test_with_the_real_bound_no_answer_grows_with_the_field(client: Client) -> None:
    t, _admin = knockout(FIELD)
    parts = int(ask(client, t)["Bracket-Parts"])
    seen: list[str] = []
    for part in range(1, parts + 1):
        response = ask(client, t, part=part)
        columns = response.json()
        assert 0 < len(slots(columns)) <= brackets.SPLIT_MATCHES
        # About 350 bytes of JSON a match, so a part stays far below 200 KB.
        assert len(response.content) <= 600 * len(slots(columns)), len(response.content)
        assert len(response.content) < 200_000
        seen += slots(columns)
    assert len(seen) == len(set(seen)) == 511  # a draw of 512 (byes included)
    final = ask(client, t, part=parts).json()[-1]
    assert len(final) == 1 and final[0]["winner_to"] is None


@pytest.mark.parametrize("field", [16, 32])
def test_a_part_costs_the_same_queries_for_any_field(
    client: Client, monkeypatch: Any, django_assert_num_queries: Any, field: int
) -> None:
    monkeypatch.setattr(brackets, "SPLIT_MATCHES", 6)
    t, _admin = knockout(field)
    # the tournament, its entries, its pairings for the bracket, its pairings with their
    # rounds and matches for what the viewer may see of them
    with django_assert_num_queries(4):
        columns = ask(client, t, part=2).json()
    assert 0 < len(slots(columns)) <= 6


def test_the_schema_documents_the_part_and_its_headers(client: Client) -> None:
    schema = json.loads(client.get("/api/schema/", {"format": "json"}).content)
    operation = schema["paths"]["/api/tournaments/{id}/bracket/"]["get"]
    part = next(p for p in operation["parameters"] if p["name"] == "part")
    assert part["in"] == "query" and part["schema"]["minimum"] == 1
    headers = operation["responses"]["200"]["headers"]
    assert {"Bracket-Part", "Bracket-Parts", "Bracket-Section", "Link"} <= set(headers)
    # The bound is written into the description when the module is first imported.
    assert re.search(r"The answer holds \d+ matches at most", operation["description"])
