"""Undoing in the organizer's console (issue 15): a withdrawal undone while no round
has been paired since (``services.reinstate``), its forfeits taken back; a pairing
undone while its round has not started (``services.unpair_round``).  Each through
the services, the console's buttons and posts, and the API."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse

from clubs.models import AuditEntry
from games import services as games_services
from games.models import MatchState, ReportSource, ReportStatus, ResultStatus
from tests.factories import UserFactory
from tests.tournaments import builders
from tournaments import services
from tournaments.models import (
    Entry,
    EntryStatus,
    Pairing,
    Round,
    RoundState,
    Tournament,
)

pytestmark = pytest.mark.django_db


def swiss(n: int = 6) -> tuple[Tournament, Any]:
    federation, admin, _discipline = builders.federation_with_admin()
    t = builders.tournament(n, "swiss", federation=federation, by=admin, rounds_planned=3)
    return t, admin


def knockout(n: int = 8) -> tuple[Tournament, Any]:
    federation, admin, _discipline = builders.federation_with_admin()
    return builders.tournament(n, "single_elimination", federation=federation, by=admin), admin


def table_one(rnd: Round) -> Pairing:
    return Pairing.objects.select_related("match", "entry1__player").get(round=rnd, table=1)


def fresh(p: Pairing) -> Pairing:
    return Pairing.objects.select_related("match", "round").get(pk=p.pk)


def finish(rnd: Round, by: Any) -> None:
    """Results at the started round's open tables (side 1 wins), then close it."""
    for p in rnd.pairings.select_related("match"):
        if p.match is not None and p.forfeit_winner is None and p.match.winner is None:
            builders.confirm_result(p, p.entry1_id)
    services.close_round(rnd, by=by)


def audited(action: str) -> int:
    return AuditEntry.objects.filter(action=action).count()


# --- Undoing a withdrawal (services.reinstate)


def test_a_withdrawal_during_a_round_is_undone_and_its_forfeit_taken_back() -> None:
    t, admin = swiss()
    rnd = services.pair_next_round(t, by=admin)
    services.start_round(rnd, by=admin)
    p = table_one(rnd)
    entry = p.entry1
    status_before = entry.status
    services.withdraw(entry, by=admin)
    forfeited = fresh(p)
    assert forfeited.forfeit_winner == 2 and forfeited.match.result_status == ResultStatus.CONFIRMED
    override = forfeited.match.reports.get(status=ReportStatus.CONFIRMED)
    assert override.source == ReportSource.OVERRIDE
    version = Tournament.objects.get(pk=t.pk).public_version

    services.reinstate(entry, by=admin)

    entry.refresh_from_db()
    assert entry.status == status_before
    assert entry.withdrawn_after_round is None and entry.withdrawal is None
    back = fresh(p)
    assert back.forfeit_winner is None
    match = back.match
    assert match.result_status == ResultStatus.NONE and match.state == MatchState.SCHEDULED
    assert (match.score1, match.score2, match.winner, match.forfeit) == (None, None, None, False)
    override.refresh_from_db()
    assert override.status == ReportStatus.SUPERSEDED  # kept on record
    assert Tournament.objects.get(pk=t.pk).public_version > version
    assert audited("tournament.entry.reinstate") == 1
    # The table awaits its result again, and the round closes once it has it.
    builders.confirm_result(back, back.entry1_id)
    finish(rnd, admin)
    assert Round.objects.get(pk=rnd.pk).state == RoundState.CLOSED


def test_a_withdrawal_in_a_round_not_started_is_undone_and_the_player_gets_a_match() -> None:
    t, admin = swiss()
    rnd = services.pair_next_round(t, by=admin)
    p = table_one(rnd)
    services.withdraw(p.entry1, by=admin)
    assert fresh(p).forfeit_winner == 2 and fresh(p).match_id is None
    services.reinstate(p.entry1, by=admin)
    assert fresh(p).forfeit_winner is None
    services.start_round(rnd, by=admin)
    assert fresh(p).match_id is not None


def test_a_table_forfeited_before_its_round_started_gets_its_match_back() -> None:
    t, admin = swiss()
    rnd = services.pair_next_round(t, by=admin)
    p = table_one(rnd)
    services.withdraw(p.entry1, by=admin)
    services.start_round(rnd, by=admin)  # no match for the forfeited table
    assert fresh(p).match_id is None
    services.reinstate(p.entry1, by=admin)
    back = fresh(p)
    assert back.forfeit_winner is None and back.match is not None
    assert back.match.length == rnd.match_length
    builders.confirm_result(back, back.entry2_id)
    finish(rnd, admin)


def test_a_withdrawal_before_the_start_is_undone() -> None:
    federation, admin, _d = builders.federation_with_admin()
    t = builders.tournament(
        4, "swiss", federation=federation, by=admin, start=False, rounds_planned=3
    )
    entry = Entry.objects.filter(tournament=t).first()
    assert entry is not None
    before = entry.status
    services.withdraw(entry, by=admin)
    services.reinstate(entry, by=admin)
    entry.refresh_from_db()
    assert entry.status == before == EntryStatus.REGISTERED


def test_a_round_paired_since_makes_the_withdrawal_final_until_it_is_unpaired() -> None:
    t, admin = swiss()
    builders.play_round(services.pair_next_round(t, by=admin), admin)
    entry = Entry.objects.filter(tournament=t).order_by("pk").first()
    assert entry is not None
    services.withdraw(entry, by=admin)
    second = services.pair_next_round(t, by=admin)
    with pytest.raises(ValidationError, match="paired after"):
        services.reinstate(entry, by=admin)
    entry.refresh_from_db()
    assert entry.status == EntryStatus.WITHDRAWN  # nothing half-done
    assert services.reinstate_problem(entry) is not None
    # Unpaired (not started yet): the withdrawal can be undone again.
    services.unpair_round(second, by=admin)
    services.reinstate(entry, by=admin)
    entry.refresh_from_db()
    assert entry.status != EntryStatus.WITHDRAWN
    # And the new round pairs the player.
    again = services.pair_next_round(t, by=admin)
    assert (
        again.pairings.filter(entry1=entry).exists() or again.pairings.filter(entry2=entry).exists()
    )


def test_a_round_unpaired_and_paired_again_after_the_withdrawal_makes_it_final() -> None:
    t, admin = swiss()
    rnd = services.pair_next_round(t, by=admin)
    p = table_one(rnd)
    services.withdraw(p.entry1, by=admin)  # while round 1 is paired
    services.unpair_round(rnd, by=admin)
    services.pair_next_round(t, by=admin)  # round 1 again, without the player
    with pytest.raises(ValidationError, match="paired after"):
        services.reinstate(p.entry1, by=admin)


def test_a_closed_round_keeps_the_forfeit_and_nothing_changes() -> None:
    t, admin = swiss()
    rnd = services.pair_next_round(t, by=admin)
    services.start_round(rnd, by=admin)
    p = table_one(rnd)
    services.withdraw(p.entry1, by=admin)
    finish(rnd, admin)
    with pytest.raises(ValidationError, match="closed"):
        services.reinstate(p.entry1, by=admin)
    assert fresh(p).forfeit_winner == 2
    assert fresh(p).match.result_status == ResultStatus.CONFIRMED
    assert Entry.objects.get(pk=p.entry1_id).status == EntryStatus.WITHDRAWN


def test_a_result_entered_by_hand_since_keeps_the_withdrawal() -> None:
    t, admin = swiss()
    rnd = services.pair_next_round(t, by=admin)
    services.start_round(rnd, by=admin)
    p = table_one(rnd)
    services.withdraw(p.entry1, by=admin)
    # The director sets another result at that table afterwards.
    builders.override_result(fresh(p), p.entry1_id, admin)
    with pytest.raises(ValidationError, match="changed after the withdrawal"):
        services.reinstate(p.entry1, by=admin)
    match = fresh(p).match
    assert match.result_status == ResultStatus.CONFIRMED and match.winner == 1
    assert Entry.objects.get(pk=p.entry1_id).status == EntryStatus.WITHDRAWN
    assert audited("tournament.entry.reinstate") == 0


def test_an_opponent_who_withdrew_since_is_undone_first() -> None:
    t, admin = swiss()
    rnd = services.pair_next_round(t, by=admin)
    services.start_round(rnd, by=admin)
    p = table_one(rnd)
    first, second = Entry.objects.get(pk=p.entry1_id), Entry.objects.get(pk=p.entry2_id)
    services.withdraw(first, by=admin)  # the table is the opponent's...
    services.withdraw(second, by=admin)  # ...who then withdraws too: nothing to forfeit
    with pytest.raises(ValidationError, match="undo that withdrawal first"):
        services.reinstate(first, by=admin)
    services.reinstate(second, by=admin)
    services.reinstate(first, by=admin)
    assert fresh(p).forfeit_winner is None
    assert fresh(p).match.result_status == ResultStatus.NONE


def test_the_games_service_takes_back_only_the_current_override() -> None:
    t, admin = swiss()
    rnd = services.pair_next_round(t, by=admin)
    services.start_round(rnd, by=admin)
    p = table_one(rnd)
    services.withdraw(p.entry1, by=admin)
    override = fresh(p).match.reports.get(status=ReportStatus.CONFIRMED)
    builders.override_result(fresh(p), p.entry1_id, admin)  # a later result
    with pytest.raises(ValidationError, match="has changed since"):
        games_services.take_back_override(override, by=admin)
    assert fresh(p).match.result_status == ResultStatus.CONFIRMED


def test_only_managers_undo_a_withdrawal_the_player_cannot() -> None:
    t, admin = swiss()
    rnd = services.pair_next_round(t, by=admin)
    p = table_one(rnd)
    entry = Entry.objects.select_related("player__user", "tournament").get(pk=p.entry1_id)
    services.withdraw(entry, by=entry.player.user)  # a player withdraws themself...
    for who in (entry.player.user, UserFactory()):
        with pytest.raises(PermissionDenied):
            services.reinstate(entry, by=who)  # ...but does not come back alone
    entry.refresh_from_db()
    assert entry.status == EntryStatus.WITHDRAWN and fresh(p).forfeit_winner == 2


def test_twice_and_without_a_record_are_refused() -> None:
    t, admin = swiss()
    entry = Entry.objects.filter(tournament=t).first()
    assert entry is not None
    with pytest.raises(ValidationError, match="has not withdrawn"):
        services.reinstate(entry, by=admin)
    services.withdraw(entry, by=admin)
    services.reinstate(entry, by=admin)
    with pytest.raises(ValidationError, match="has not withdrawn"):
        services.reinstate(entry, by=admin)
    # A withdrawal made before undoing existed has no record: it stands.
    services.withdraw(entry, by=admin)
    Entry.objects.filter(pk=entry.pk).update(withdrawal=None)
    with pytest.raises(ValidationError, match="left nothing to undo it by"):
        services.reinstate(entry, by=admin)


def test_a_knockout_withdrawal_is_undone_until_the_next_round_is_paired() -> None:
    t, admin = knockout()
    first = services.pair_next_round(t, by=admin)
    services.start_round(first, by=admin)
    p = table_one(first)
    services.withdraw(p.entry1, by=admin)
    assert fresh(p).forfeit_winner == 2  # the opponent goes through...
    services.reinstate(p.entry1, by=admin)
    assert fresh(p).forfeit_winner is None  # ...no longer
    services.withdraw(p.entry1, by=admin)
    finish(first, admin)
    services.pair_next_round(t, by=admin)
    with pytest.raises(ValidationError, match="paired after"):
        services.reinstate(p.entry1, by=admin)


# --- Undoing a pairing (services.unpair_round)


def test_a_paired_round_is_undone_and_paired_again() -> None:
    t, admin = swiss()
    rnd = services.pair_next_round(t, by=admin)
    version = Tournament.objects.get(pk=t.pk).public_version
    done = services.unpair_round(rnd, by=admin)
    assert done == {"flight": "main", "round": 1}
    assert not Round.objects.filter(pk=rnd.pk).exists()
    assert not Pairing.objects.filter(round_id=rnd.pk).exists()
    assert Tournament.objects.get(pk=t.pk).public_version > version
    assert audited("tournament.round.unpair") == 1
    again = services.pair_next_round(t, by=admin)
    assert again.number == 1 and again.pairings.count() == 3


def test_a_started_round_or_a_hand_forfeit_keeps_its_pairing() -> None:
    t, admin = swiss()
    rnd = services.pair_next_round(t, by=admin)
    p = table_one(rnd)
    services.forfeit(p, by=admin, winner=p.entry2_id, reason="Absent")
    with pytest.raises(ValidationError, match="forfeit recorded"):
        services.unpair_round(rnd, by=admin)
    assert Round.objects.filter(pk=rnd.pk).exists() and rnd.pairings.count() == 3
    services.start_round(rnd, by=admin)
    with pytest.raises(ValidationError, match="has started"):
        services.unpair_round(rnd, by=admin)
    assert Round.objects.filter(pk=rnd.pk).exists()


def test_only_managers_undo_a_pairing() -> None:
    t, admin = swiss()
    rnd = services.pair_next_round(t, by=admin)
    with pytest.raises(PermissionDenied):
        services.unpair_round(rnd, by=UserFactory())
    assert Round.objects.filter(pk=rnd.pk).exists()


def test_a_bracket_round_unpaired_frees_its_slots_for_the_same_pairing() -> None:
    t, admin = knockout()
    builders.play_round(services.pair_next_round(t, by=admin), admin)
    second = services.pair_next_round(t, by=admin)
    slots = sorted(second.pairings.values_list("slot", "entry1_id", "entry2_id"))
    services.unpair_round(second, by=admin)
    again = services.pair_next_round(t, by=admin)
    assert again.number == second.number
    assert sorted(again.pairings.values_list("slot", "entry1_id", "entry2_id")) == slots


def test_a_pairing_undone_twice_is_refused_the_second_time_with_its_reason() -> None:
    """The second of two posts (another tab, the API) finds the round gone: a clear
    refusal, not a server error."""
    t, admin = knockout()
    rnd = services.pair_next_round(t, by=admin)
    stale_copy = Round.objects.get(pk=rnd.pk)
    services.unpair_round(rnd, by=admin)
    with pytest.raises(ValidationError, match="no longer paired"):
        services.unpair_round(stale_copy, by=admin)
    assert not Round.objects.filter(tournament=t).exists()


def test_a_withdrawals_forfeit_in_an_unpaired_round_is_forgotten() -> None:
    t, admin = swiss()
    rnd = services.pair_next_round(t, by=admin)
    p = table_one(rnd)
    services.withdraw(p.entry1, by=admin)
    services.unpair_round(rnd, by=admin)  # its forfeit was the withdrawal's
    entry = Entry.objects.get(pk=p.entry1_id)
    services.reinstate(entry, by=admin)  # nothing left to take back there
    assert Entry.objects.get(pk=entry.pk).status != EntryStatus.WITHDRAWN


def test_a_withdrawals_forfeit_follows_the_pairings_edited_since() -> None:
    t, admin = swiss()
    rnd = services.pair_next_round(t, by=admin)
    p = table_one(rnd)
    quitter = p.entry1
    services.withdraw(quitter, by=admin)
    # The director re-pairs the round by hand: the quitter meets someone else.
    a, b, c, d, e, f = builders.entry_ids_by_seed(t)
    others = [x for x in (a, b, c, d, e, f) if x != quitter.pk]
    services.edit_pairings(
        rnd, [(others[0], quitter.pk), (others[1], others[2]), (others[3], others[4])], by=admin
    )
    table = Pairing.objects.get(round=rnd, entry2=quitter)
    assert table.forfeit_winner == 1  # the edit forfeits the withdrawn player's table
    services.reinstate(quitter, by=admin)
    assert Pairing.objects.get(pk=table.pk).forfeit_winner is None


# --- The console


def console(t: Tournament) -> str:
    return reverse("tournaments:console", args=[t.pk])


def messages_of(response: Any) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


def test_the_console_offers_undo_only_while_allowed_and_asks_first(client: Any) -> None:
    t, admin = swiss()
    client.force_login(admin)
    rnd = services.pair_next_round(t, by=admin)
    html = client.get(console(t)).content.decode()
    unpair = reverse("tournaments:round_unpair", args=[t.pk, rnd.pk])
    assert "Undo pairing" in html and unpair in html
    assert "Undo withdrawal" not in html
    p = table_one(rnd)
    services.withdraw(p.entry1, by=admin)
    html = client.get(console(t)).content.decode()
    reinstate = reverse("tournaments:entry_reinstate", args=[t.pk, p.entry1_id])
    assert "Undo withdrawal" in html and reinstate in html
    assert "can be undone until the next round is paired" in html
    services.start_round(rnd, by=admin)
    html = client.get(console(t)).content.decode()
    assert unpair not in html and reinstate in html  # started: the pairing stands

    # Without confirm=1 the step asks on its own page; nothing is done yet.
    asked = client.post(reinstate, {"status": "withdrawn"})
    assert asked.status_code == 200 and "Undo the withdrawal of" in asked.content.decode()
    assert Entry.objects.get(pk=p.entry1_id).status == EntryStatus.WITHDRAWN
    done = client.post(reinstate, {"status": "withdrawn", "confirm": "1"}, follow=True)
    assert any("is undone" in m for m in messages_of(done))
    assert Entry.objects.get(pk=p.entry1_id).status != EntryStatus.WITHDRAWN
    # The same post again (a second click, another tab): stale, nothing done, no error.
    again = client.post(reinstate, {"status": "withdrawn", "confirm": "1"}, follow=True)
    assert again.status_code == 200
    assert any("Nothing was done" in m for m in messages_of(again))


def test_the_console_refuses_cleanly_once_the_rules_do(client: Any) -> None:
    t, admin = swiss()
    client.force_login(admin)
    builders.play_round(services.pair_next_round(t, by=admin), admin)
    entry = Entry.objects.filter(tournament=t).order_by("pk").first()
    assert entry is not None
    services.withdraw(entry, by=admin)
    reinstate = reverse("tournaments:entry_reinstate", args=[t.pk, entry.pk])
    assert reinstate in client.get(console(t)).content.decode()
    services.pair_next_round(t, by=admin)  # meanwhile, in another tab
    assert reinstate not in client.get(console(t)).content.decode()
    response = client.post(reinstate, {"status": "withdrawn", "confirm": "1"}, follow=True)
    assert response.status_code == 200
    assert any("paired after" in m for m in messages_of(response))
    assert Entry.objects.get(pk=entry.pk).status == EntryStatus.WITHDRAWN


def test_undoing_a_pairing_from_the_console_and_a_second_post(client: Any) -> None:
    t, admin = swiss()
    client.force_login(admin)
    rnd = services.pair_next_round(t, by=admin)
    unpair = reverse("tournaments:round_unpair", args=[t.pk, rnd.pk])
    asked = client.post(unpair, {"round_state": "paired"})
    assert asked.status_code == 200 and "Undo the pairing of" in asked.content.decode()
    assert Round.objects.filter(pk=rnd.pk).exists()
    done = client.post(unpair, {"round_state": "paired", "confirm": "1"}, follow=True)
    assert any("is undone" in m for m in messages_of(done))
    assert not Round.objects.filter(pk=rnd.pk).exists()
    again = client.post(unpair, {"round_state": "paired", "confirm": "1"}, follow=True)
    assert again.status_code == 200
    assert any("no longer paired" in m for m in messages_of(again))
    # Someone else's click: no access.
    client.force_login(UserFactory())
    assert client.post(unpair, {"round_state": "paired", "confirm": "1"}).status_code == 403


def test_a_started_round_posted_as_paired_is_stale(client: Any) -> None:
    t, admin = swiss()
    client.force_login(admin)
    rnd = services.pair_next_round(t, by=admin)
    services.start_round(rnd, by=admin)
    unpair = reverse("tournaments:round_unpair", args=[t.pk, rnd.pk])
    response = client.post(unpair, {"round_state": "paired", "confirm": "1"}, follow=True)
    assert any("Nothing was done" in m for m in messages_of(response))
    assert Round.objects.filter(pk=rnd.pk).exists()


# --- The API


def send(client: Any, url: str) -> Any:
    return client.post(
        url,
        json.dumps({}),
        content_type="application/json",
        HTTP_ACCEPT="application/json",
        HTTP_ACCEPT_LANGUAGE="en",
    )


def test_the_api_undoes_a_withdrawal_and_a_pairing(client: Any) -> None:
    t, admin = swiss()
    rnd = services.pair_next_round(t, by=admin)
    p = table_one(rnd)
    services.withdraw(p.entry1, by=admin)
    client.force_login(UserFactory())
    assert send(client, f"/api/entries/{p.entry1_id}/reinstate/").status_code in (403, 404)
    assert send(client, f"/api/rounds/{rnd.pk}/unpair/").status_code in (403, 404)
    client.force_login(admin)
    response = send(client, f"/api/entries/{p.entry1_id}/reinstate/")
    assert response.status_code == 200 and response.json()["status"] != "withdrawn"
    again = send(client, f"/api/entries/{p.entry1_id}/reinstate/")
    assert again.status_code == 400 and "has not withdrawn" in str(again.json())
    assert send(client, f"/api/rounds/{rnd.pk}/unpair/").status_code == 204
    assert not Round.objects.filter(pk=rnd.pk).exists()
    assert send(client, f"/api/rounds/{rnd.pk}/unpair/").status_code == 404
