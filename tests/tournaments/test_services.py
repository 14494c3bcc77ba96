"""The tournaments services: settings, states, entries, rounds, pairings, permissions."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from clubs import permissions
from clubs import services as club_services
from clubs.models import AuditEntry, Role
from games import services as games_services
from games.models import Match
from tests.factories import ClubFactory, PlayerFactory, UserFactory
from tests.tournaments import builders
from tests.tournaments.builders import higher_seed, play_round
from tournaments import services
from tournaments.models import (
    Entry,
    EntryStatus,
    Round,
    RoundState,
    StandingsSnapshot,
    Tournament,
    TournamentState,
)

pytestmark = pytest.mark.django_db


def new(world, **values):  # type: ignore[no-untyped-def]
    values.setdefault("name", "Кубок города")
    values.setdefault("format", "swiss")
    values.setdefault("rounds_planned", 5)
    return services.create_tournament(
        by=values.pop("by", world.fed_admin),
        federation=world.federation,
        discipline=world.discipline,
        **values,
    )


# --- Creating and changing tournaments


def test_who_may_create_a_tournament(world) -> None:  # type: ignore[no-untyped-def]
    t = new(world)
    assert t.slug == "kubok-goroda" and t.created_by == world.fed_admin
    assert new(world).slug == "kubok-goroda-2"  # unique in the federation
    hosted = new(world, by=world.club_admin, club=world.club)
    assert hosted.club == world.club
    with pytest.raises(PermissionDenied):
        new(world, by=world.club_admin)  # a club admin hosts at their club only
    with pytest.raises(PermissionDenied):
        new(world, by=world.plain)
    other_club = ClubFactory()
    with pytest.raises(PermissionDenied):
        new(world, by=world.club_admin, club=other_club)
    assert AuditEntry.objects.filter(action="tournament.create").count() == 3


def test_settings_are_checked_and_say_what_is_wrong(world) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValidationError) as err:
        new(world, rounds_planned=None)
    assert "rounds_planned" in err.value.message_dict
    with pytest.raises(ValidationError) as err:
        new(world, tie_breaks=["BH", "XX"])
    assert "XX" in " ".join(err.value.message_dict["tie_breaks"])
    with pytest.raises(ValidationError) as err:
        new(world, tie_breaks=["BH", "BH"])
    assert "tie_breaks" in err.value.message_dict
    with pytest.raises(ValidationError) as err:
        new(world, match_lengths={"main": {"1": 0}})
    assert "main" in " ".join(err.value.message_dict["match_lengths"])
    with pytest.raises(ValidationError) as err:
        new(world, format="groups_knockout")
    assert {"groups", "qualifiers_per_group"} <= set(err.value.message_dict)
    with pytest.raises(ValidationError, match="Unknown settings: colour"):
        new(world, colour="red")
    assert not Tournament.objects.exists()  # nothing half-saved


def test_running_tournaments_keep_their_format(world) -> None:  # type: ignore[no-untyped-def]
    admin = world.fed_admin
    t = builders.tournament(4, "swiss", federation=world.federation, by=admin, rounds_planned=3)
    with pytest.raises(ValidationError) as err:
        services.update_tournament(t, by=admin, format="round_robin", bye_is_win=False)
    assert set(err.value.message_dict) == {"format", "bye_is_win"}
    services.update_tournament(t, by=admin, rounds_planned=4, publish_results=False)
    t.refresh_from_db()
    assert t.rounds_planned == 4 and not t.publish_results
    with pytest.raises(PermissionDenied):
        services.update_tournament(t, by=world.plain, name="Mine")


def test_state_transitions(world) -> None:  # type: ignore[no-untyped-def]
    admin = world.fed_admin
    t = new(world)
    with pytest.raises(ValidationError, match="cannot become"):
        services.set_state(t, TournamentState.CHECK_IN, by=admin)
    with pytest.raises(ValidationError, match="Starting the tournament"):
        services.set_state(t, TournamentState.RUNNING, by=admin)
    services.set_state(t, TournamentState.REGISTRATION, by=admin)
    services.set_state(t, TournamentState.CHECK_IN, by=admin)
    assert Tournament.objects.get(pk=t.pk).state == TournamentState.CHECK_IN
    with pytest.raises(ValidationError, match="Finishing the tournament"):
        services.set_state(t, TournamentState.FINISHED, by=admin)


# --- Entries


def test_players_enter_themselves_while_registration_is_open(world) -> None:  # type: ignore[no-untyped-def]
    admin = world.fed_admin
    t = new(world)
    player = PlayerFactory(federation=world.federation, user=UserFactory())
    with pytest.raises(PermissionDenied):
        services.add_entry(t, player, by=player.user)  # a draft is not open
    services.set_state(t, TournamentState.REGISTRATION, by=admin)
    entry = services.add_entry(t, player, by=player.user)
    assert entry.status == EntryStatus.REGISTERED
    with pytest.raises(ValidationError, match="already entered"):
        services.add_entry(t, player, by=admin)
    other = PlayerFactory(federation=world.federation, user=UserFactory())
    with pytest.raises(PermissionDenied):
        services.add_entry(t, other, by=player.user)  # not for someone else
    merged = PlayerFactory(federation=world.federation, merged_into=other)
    with pytest.raises(ValidationError, match="merged"):
        services.add_entry(t, merged, by=admin)
    services.remove_entry(entry, by=player.user)
    assert not Entry.objects.filter(tournament=t).exists()


def test_check_in_then_start_withdraws_who_did_not_come(world) -> None:  # type: ignore[no-untyped-def]
    admin = world.fed_admin
    t = builders.tournament(
        5, "swiss", federation=world.federation, by=admin, start=False, rounds_planned=3
    )
    services.set_state(t, TournamentState.CHECK_IN, by=admin)
    entries = list(Entry.objects.filter(tournament=t).select_related("player__user").order_by("id"))
    for entry in entries[:4]:
        services.check_in(entry, by=entry.player.user)
    with pytest.raises(PermissionDenied):
        services.check_in(entries[4], by=entries[0].player.user)
    services.start_tournament(t, by=admin)
    absent = Entry.objects.get(pk=entries[4].pk)
    assert absent.status == EntryStatus.WITHDRAWN and absent.seed is None
    assert sorted(
        Entry.objects.filter(tournament=t).exclude(seed=None).values_list("seed", flat=True)
    ) == [1, 2, 3, 4]
    with pytest.raises(ValidationError, match="Removing an entry"):
        services.remove_entry(Entry.objects.get(pk=entries[0].pk), by=admin)


def test_seeds_by_hand_are_checked(world) -> None:  # type: ignore[no-untyped-def]
    admin = world.fed_admin
    t = builders.tournament(
        3,
        "single_elimination",
        federation=world.federation,
        by=admin,
        start=False,
        seeding="manual",
    )
    a, b, c = Entry.objects.filter(tournament=t).order_by("id")
    with pytest.raises(ValidationError, match="Seeds given twice: 1"):
        services.seed_entries(t, by=admin, seeds={a.pk: 1, b.pk: 1})
    with pytest.raises(ValidationError, match="Not entries of this tournament"):
        services.seed_entries(t, by=admin, seeds={999999: 1})
    services.seed_entries(t, by=admin, seeds={c.pk: 1, a.pk: 2})
    services.start_tournament(t, by=admin)
    # Hand seeds first, the entry without one after them.
    assert builders.entry_ids_by_seed(t) == [c.pk, a.pk, b.pk]
    by_rating = builders.tournament(
        3, "single_elimination", federation=world.federation, by=admin, start=False
    )
    ordered = services.seed_entries(by_rating, by=admin)
    assert [e.rating for e in ordered] == sorted((e.rating for e in ordered), reverse=True)


def test_late_entries_only_join_swiss_and_cups(world) -> None:  # type: ignore[no-untyped-def]
    admin = world.fed_admin
    t = builders.tournament(4, "single_elimination", federation=world.federation, by=admin)
    player = PlayerFactory(federation=world.federation)
    with pytest.raises(
        ValidationError, match="late entries join only these formats: Swiss, cup of several stages"
    ):
        services.add_entry(t, player, by=admin, late=True)


# --- Rounds and pairings


def test_rounds_start_matches_with_the_tournaments_settings(world) -> None:  # type: ignore[no-untyped-def]
    admin = world.fed_admin
    t = builders.tournament(
        4,
        "single_elimination",
        federation=world.federation,
        by=admin,
        match_lengths={"main": {"1": 5, "final": 11}},
        clock_mode="delay",
        clock_reserve_seconds=600,
        clock_per_point_seconds=120,
        clock_move_seconds=12,
        recorded_matches=True,
    )
    first = services.pair_next_round(t, by=admin)
    assert first.match_length == 5 and first.state == RoundState.PAIRED
    with pytest.raises(ValidationError, match="still open"):
        services.pair_next_round(t, by=admin)
    services.start_round(first, by=admin)
    matches = Match.objects.filter(pairing__round=first)
    assert matches.count() == 2
    for m in matches:
        assert (m.length, m.clock_mode, m.clock_reserve_seconds, m.clock_per_point_seconds) == (
            5,
            "delay",
            600,
            120,
        )
        assert m.clock_move_seconds == 12 and m.recorded
        assert m.discipline == t.discipline and m.federation == t.federation
    with pytest.raises(ValidationError, match="started already"):
        services.start_round(first, by=admin)
    for p in first.pairings.all()[:1]:
        games_services.override_result(p.match, by=admin, score1=5, score2=0, reason="test")
    with pytest.raises(ValidationError, match="no confirmed result at tables 2"):
        services.close_round(first, by=admin)
    p2 = first.pairings.get(table=2)
    builders.confirm_result(p2, higher_seed(p2))
    services.close_round(first, by=admin)
    final = services.pair_next_round(t, by=admin)
    assert final.match_length == 11  # the final's own length


def test_editing_pairings_is_checked(world) -> None:  # type: ignore[no-untyped-def]
    admin = world.fed_admin
    t = builders.tournament(5, "swiss", federation=world.federation, by=admin, rounds_planned=3)
    rnd = services.pair_next_round(t, by=admin)
    ids = builders.entry_ids_by_seed(t)
    a, b, c, d, e = ids
    with pytest.raises(ValidationError, match="Paired more than once"):
        services.edit_pairings(rnd, [(a, b), (a, c), (d, e)], by=admin)
    with pytest.raises(ValidationError, match="Missing from the pairings"):
        services.edit_pairings(rnd, [(a, b), (c, d)], by=admin)
    outsider = Entry.objects.create(
        tournament=builders.tournament(
            2, "swiss", federation=world.federation, by=admin, rounds_planned=1, start=False
        ),
        player=PlayerFactory(),
    )
    with pytest.raises(ValidationError, match="Not players of this round"):
        services.edit_pairings(rnd, [(a, b), (c, d), (e, outsider.pk)], by=admin)
    with pytest.raises(PermissionDenied):
        services.edit_pairings(rnd, [(a, e), (b, c), (d, None)], by=world.plain)
    services.edit_pairings(rnd, [(a, e), (d, None), (b, c)], by=admin)
    assert list(rnd.pairings.order_by("table").values_list("entry1_id", "entry2_id")) == [
        (a, e),
        (b, c),
        (d, None),
    ]
    services.start_round(rnd, by=admin)
    with pytest.raises(ValidationError, match="has started"):
        services.edit_pairings(rnd, [(a, b), (c, d), (e, None)], by=admin)


def test_forfeits_are_checked_and_go_through_the_match(world) -> None:  # type: ignore[no-untyped-def]
    admin = world.fed_admin
    t = builders.tournament(3, "swiss", federation=world.federation, by=admin, rounds_planned=2)
    rnd = services.pair_next_round(t, by=admin)
    services.start_round(rnd, by=admin)
    played = rnd.pairings.get(entry2__isnull=False)
    bye = rnd.pairings.get(entry2__isnull=True)
    with pytest.raises(ValidationError, match="is a bye"):
        services.forfeit(bye, by=admin, winner=bye.entry1_id, reason="x")
    with pytest.raises(ValidationError, match="one of its two players"):
        services.forfeit(played, by=admin, winner=bye.entry1_id, reason="x")
    with pytest.raises(ValidationError, match="written reason"):
        services.forfeit(played, by=admin, winner=played.entry2_id, reason=" ")
    with pytest.raises(PermissionDenied):
        services.forfeit(played, by=world.plain, winner=played.entry2_id, reason="late")
    services.forfeit(played, by=admin, winner=played.entry2_id, reason="late")
    played.refresh_from_db()
    assert played.forfeit_winner == 2
    assert (played.match.score1, played.match.score2, played.match.forfeit) == (0, 3, True)
    services.close_round(rnd, by=admin)
    rows = services.compute_standings(t).rows
    loser = next(r for r in rows if r["entry"] == played.entry1_id)
    assert loser["forfeits"] == 1 and loser["losses"] == 1


# --- Standings and silent rounds


def test_silent_round_hides_the_standings_until_released(world) -> None:  # type: ignore[no-untyped-def]
    admin = world.fed_admin
    t = builders.tournament(4, "swiss", federation=world.federation, by=admin, rounds_planned=3)
    play_round(services.pair_next_round(t, by=admin), admin)
    first = services.compute_standings(t)
    assert first.published_at is not None  # published at once: nothing silent
    silent = services.pair_next_round(t, by=admin, silent=True)
    play_round(silent, admin)
    second = services.compute_standings(t)
    assert second.after_round == 2 and second.published_at is None
    with pytest.raises(PermissionDenied):
        services.publish_standings(second, by=world.plain)
    services.publish_standings(second, by=admin)
    second.refresh_from_db()
    assert second.published_at is not None
    assert not Round.objects.get(pk=silent.pk).silent


def test_standings_are_idempotent(world) -> None:  # type: ignore[no-untyped-def]
    admin = world.fed_admin
    t = builders.tournament(4, "swiss", federation=world.federation, by=admin, rounds_planned=2)
    play_round(services.pair_next_round(t, by=admin), admin)
    one = services.compute_standings(t)
    two = services.compute_standings(t)
    assert one.pk == two.pk and one.computed_at == two.computed_at and one.rows == two.rows
    assert StandingsSnapshot.objects.filter(tournament=t).count() == 1
    services.update_tournament(t, by=admin, tie_breaks=["SB", "BH"])
    three = services.compute_standings(t)
    assert three.pk == one.pk and three.results_digest != one.results_digest
    assert three.tie_breaks == ["SB", "BH"]  # the order; rows hold values by code
    assert set(three.rows[0]["tiebreaks"]) == {"SB", "BH"}


# --- Roles


def test_organizers_and_arbiters_of_a_tournament(world) -> None:  # type: ignore[no-untyped-def]
    admin = world.fed_admin
    t = builders.tournament(4, "single_elimination", federation=world.federation, by=admin)
    organizer, arbiter, user = UserFactory(), UserFactory(), world.plain
    with pytest.raises(PermissionDenied):
        club_services.grant_role(organizer, Role.ORGANIZER, t, by=user)
    club_services.grant_role(organizer, Role.ORGANIZER, t, by=admin)
    club_services.grant_role(arbiter, Role.ARBITER, t, by=organizer)
    assert permissions.can(organizer, "tournament.manage", t)
    assert not permissions.can(arbiter, "tournament.manage", t)
    assert not permissions.can(user, "tournament.manage", t)
    rnd = services.pair_next_round(t, by=organizer)
    services.start_round(rnd, by=organizer)
    match = rnd.pairings.get(table=1).match
    assert permissions.can(arbiter, "match.arbitrate", match)
    assert permissions.can(organizer, "match.override", match)
    assert not permissions.can(arbiter, "match.override", match)
    assert not permissions.can(user, "match.arbitrate", match)
    # The arbiter decides a disputed result of the tournament.
    report = games_services.submit_report(match, by=match.player1.user, score1=3, score2=1)
    games_services.dispute_report(report, by=match.player2.user, reason="it was 1-3")
    games_services.decide_dispute(
        report, by=arbiter, uphold=False, reason="scoresheet", score1=1, score2=3
    )
    match.refresh_from_db()
    assert match.winner == 2
    # A club admin manages the tournaments hosted at their club, not others.
    hosted = new(world, by=world.club_admin, club=world.club)
    assert permissions.can(world.club_admin, "tournament.manage", hosted)
    assert not permissions.can(world.club_admin, "tournament.manage", t)


def test_every_tie_break_in_the_organizers_order(world) -> None:  # type: ignore[no-untyped-def]
    admin = world.fed_admin
    # Every offered code (PR is not offered: test_pr_is_kept_by_a_tournament_that_had_it).
    codes = ["DE", "KS", "PD", "PW", "ARO", "PS", "SB", "BH-M1", "BH-C1", "BH", "WON", "WIN"]
    t = builders.tournament(
        6, "swiss", federation=world.federation, by=admin, rounds_planned=3, tie_breaks=codes
    )
    for _ in range(3):
        play_round(services.pair_next_round(t, by=admin), admin)
    snapshot = services.compute_standings(t)
    assert snapshot.tie_breaks == codes
    top = snapshot.rows[0]
    assert set(top["tiebreaks"]) == set(codes)
    assert top["tiebreaks"]["WIN"] == 3 and top["tiebreaks"]["WON"] == 3
    assert top["tiebreaks"]["PW"] == 9  # three matches won to 3
    assert top["tiebreaks"]["ARO"] is not None
    assert [r["score"] for r in snapshot.rows] == sorted(
        (r["score"] for r in snapshot.rows), reverse=True
    )


def test_pr_is_offered_to_a_new_choice(world) -> None:  # type: ignore[no-untyped-def]
    # Recorded matches are analysed (the analysis app): PR is a tie-break like the others.
    t = new(world, tie_breaks=["BH", "PR"])
    assert t.tie_breaks == ["BH", "PR"]
    services.update_tournament(t, by=world.fed_admin, tie_breaks=["PR", "BH"])
    t.refresh_from_db()
    assert t.tie_breaks == ["PR", "BH"]


def test_pr_is_kept_by_a_tournament_that_had_it(world) -> None:  # type: ignore[no-untyped-def]
    admin = world.fed_admin
    t = builders.tournament(6, "swiss", federation=world.federation, by=admin, rounds_planned=3)
    # Chosen while PR was offered: the row holds it as it was saved then.
    Tournament.objects.filter(pk=t.pk).update(tie_breaks=["PR", "BH", "SB"])
    t.refresh_from_db()
    for _ in range(3):
        play_round(services.pair_next_round(t, by=admin), admin)
    snapshot = services.compute_standings(t)
    assert snapshot.tie_breaks == ["PR", "BH", "SB"]
    assert all(row["tiebreaks"]["PR"] is None for row in snapshot.rows)
    # PR is empty for everyone, so BH and SB order the players as without it.
    with_pr = [(r["place"], r["entry"]) for r in services.standings_rows(t)[0]]
    Tournament.objects.filter(pk=t.pk).update(tie_breaks=["BH", "SB"])
    t.refresh_from_db()
    assert [(r["place"], r["entry"]) for r in services.standings_rows(t)[0]] == with_pr
    Tournament.objects.filter(pk=t.pk).update(tie_breaks=["PR", "BH", "SB"])
    t.refresh_from_db()
    # Other settings still change; the organizer may reorder, drop and add PR back.
    services.update_tournament(t, by=admin, name="Кубок с PR", tie_breaks=["BH", "PR", "SB"])
    t.refresh_from_db()
    assert t.name == "Кубок с PR" and t.tie_breaks == ["BH", "PR", "SB"]
    services.update_tournament(t, by=admin, tie_breaks=["BH", "SB"])
    services.update_tournament(t, by=admin, tie_breaks=["BH", "SB", "PR"])
    t.refresh_from_db()
    assert t.tie_breaks == ["BH", "SB", "PR"]


def test_seeding_by_rating_reads_the_current_pool_ratings(world) -> None:  # type: ignore[no-untyped-def]
    from clubs.models import FederationDiscipline
    from ratings.models import PlayerRating, RatingPool

    admin = world.fed_admin
    t = builders.tournament(
        3, "single_elimination", federation=world.federation, by=admin, start=False
    )
    entries = list(t.entries.order_by("id"))
    rated = FederationDiscipline.objects.create(federation=t.federation, discipline=t.discipline)
    pool = RatingPool.objects.create(rated_discipline=rated)
    # The pool ranks the entries in the reverse of the order they were entered with.
    for entry, rating in zip(entries, (1650.0, 1710.0, 1800.0), strict=True):
        PlayerRating.objects.create(pool=pool, player=entry.player, rating=rating)
    ordered = services.seed_entries(t, by=admin)
    by_seed = sorted(ordered, key=lambda e: e.seed)
    assert [e.pk for e in by_seed] == [entries[2].pk, entries[1].pk, entries[0].pk]
    assert [e.rating for e in by_seed] == [1800.0, 1710.0, 1650.0]
