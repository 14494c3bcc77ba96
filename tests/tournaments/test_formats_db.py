"""Every format runs a whole event through the services and the database.

Results are entered as players do (report + confirm in games.services); the
better seed wins unless a test says otherwise, so the expected outcome is
known from the seeding.
"""

from __future__ import annotations

from collections import Counter

import pytest
from django.core.exceptions import ValidationError

from games.models import Match
from tests.tournaments import builders
from tests.tournaments.builders import higher_seed, play_round, run_all_flights, run_flight_rounds
from tournaments import queries, services
from tournaments.formats import groups_knockout, registry
from tournaments.models import Entry, EntryStatus, Pairing, Round, TournamentState

pytestmark = pytest.mark.django_db


def seeds_of(t, pairs):  # type: ignore[no-untyped-def]
    seed = dict(Entry.objects.filter(tournament=t).values_list("pk", "seed"))
    return [(seed[a], seed[b] if b else None) for a, b in pairs]


def pairs(rnd: Round) -> list[tuple[int, int | None]]:
    return list(rnd.pairings.order_by("table").values_list("entry1_id", "entry2_id"))


def main_rows(snapshot, flight="main"):  # type: ignore[no-untyped-def]
    return [r for r in snapshot.rows if r["flight"] == flight]


def lower_seed(pairing: Pairing) -> int:
    winner = higher_seed(pairing)
    return pairing.entry2_id if winner == pairing.entry1_id else pairing.entry1_id


# --- Single elimination


def test_single_elimination_seeded_by_rating_gives_byes_to_the_top_seeds() -> None:
    fed, admin, _ = builders.federation_with_admin()
    t = builders.tournament(11, "single_elimination", federation=fed, by=admin)
    by_seed = builders.entry_ids_by_seed(t)
    ratings = list(
        Entry.objects.filter(pk__in=by_seed).order_by("seed").values_list("rating", flat=True)
    )
    assert ratings == sorted(ratings, reverse=True)
    first = services.pair_next_round(t, by=admin)
    # 16 places, 5 byes for seeds 1-5: only 6-11, 7-10, 8-9 play (no bye rows in a bracket).
    assert sorted(seeds_of(t, pairs(first))) == [(6, 11), (7, 10), (8, 9)]
    assert set(first.pairings.values_list("slot", flat=True)) == {"M1-3", "M1-5", "M1-7"} or all(
        s.startswith("M1-") for s in first.pairings.values_list("slot", flat=True)
    )
    play_round(first, admin)
    rounds = [first, *run_flight_rounds(t, admin)]
    assert [r.number for r in rounds] == [1, 2, 3, 4]
    assert Round.objects.get(tournament=t, number=4).pairings.count() == 1
    services.finish_tournament(t, by=admin)
    snap = queries.latest_standings(t)
    assert snap is not None
    rows = main_rows(snap)
    assert [(r["place"], r["seed"]) for r in rows[:4]] == [
        ("1", 1),
        ("2", 2),
        ("3-4", 3),
        ("3-4", 4),
    ]
    assert {r["place"] for r in rows[4:8]} == {"5-8"}
    assert len(rows) == 11


def test_single_elimination_by_hand_seeds_and_a_forfeit_advances_the_opponent() -> None:
    fed, admin, _ = builders.federation_with_admin()
    t = builders.tournament(
        4, "single_elimination", federation=fed, by=admin, seeding="manual", start=False
    )
    entries = list(Entry.objects.filter(tournament=t).order_by("id"))
    # The organizer reverses the order of entry.
    services.seed_entries(t, by=admin, seeds={e.pk: 4 - k for k, e in enumerate(entries)})
    services.start_tournament(t, by=admin)
    assert builders.entry_ids_by_seed(t) == [e.pk for e in reversed(entries)]
    rnd = services.pair_next_round(t, by=admin)
    services.start_round(rnd, by=admin)
    top = rnd.pairings.get(slot="M1-1")
    loser = top.entry1_id  # seed 1 forfeits
    services.forfeit(top, by=admin, winner=top.entry2_id, reason="did not arrive")
    top.refresh_from_db()
    assert top.forfeit_winner == 2 and top.match.forfeit
    assert top.match.result_status == "confirmed"
    other = rnd.pairings.get(slot="M1-2")
    builders.confirm_result(other, higher_seed(other))
    services.close_round(rnd, by=admin)
    final = services.pair_next_round(t, by=admin)
    assert loser not in {p for pair in pairs(final) for p in pair}
    assert top.entry2_id in {p for pair in pairs(final) for p in pair}
    assert registry.for_tournament(t).load_bracket(t).forfeited("M1-1")


def test_a_withdrawal_in_a_bracket_forfeits_the_open_match() -> None:
    fed, admin, _ = builders.federation_with_admin()
    t = builders.tournament(8, "single_elimination", federation=fed, by=admin)
    rnd = services.pair_next_round(t, by=admin)
    services.start_round(rnd, by=admin)
    p = rnd.pairings.get(table=1)
    quitter = Entry.objects.get(pk=p.entry1_id)
    services.withdraw(quitter, by=quitter.player.user)
    p.refresh_from_db()
    assert p.forfeit_winner == 2
    assert Match.objects.get(pk=p.match_id).forfeit
    for other in rnd.pairings.exclude(pk=p.pk):
        builders.confirm_result(other, higher_seed(other))
    services.close_round(rnd, by=admin)
    nxt = services.pair_next_round(t, by=admin)
    assert quitter.pk not in {x for pair in pairs(nxt) for x in pair}
    quitter.refresh_from_db()
    assert quitter.status == EntryStatus.WITHDRAWN and quitter.withdrawn_after_round == 1


# --- Main flight with consolation and last chance


@pytest.mark.parametrize(("n", "progressive"), [(16, False), (16, True), (24, True)])
def test_main_consolation_and_last_chance_full_event(n: int, progressive: bool) -> None:
    fed, admin, _ = builders.federation_with_admin()
    t = builders.tournament(
        n,
        "main_consolation",
        federation=fed,
        by=admin,
        progressive_consolation=progressive,
        last_chance=True,
        match_lengths={"main": 5, "consolation": 3, "last_chance": 1},
    )
    played = run_all_flights(t, admin, ["main", "consolation", "last_chance"])
    assert all(played[f] for f in ("main", "consolation", "last_chance"))
    lengths = {
        f: set(Round.objects.filter(tournament=t, flight=f).values_list("match_length", flat=True))
        for f in ("main", "consolation", "last_chance")
    }
    assert lengths == {"main": {5}, "consolation": {3}, "last_chance": {1}}
    main_losers_r1 = set()
    for p in Round.objects.get(tournament=t, flight="main", number=1).pairings.all():
        main_losers_r1.add(p.entry2_id if higher_seed(p) == p.entry1_id else p.entry1_id)
    consolation_players = {
        x
        for p in Pairing.objects.filter(round__tournament=t, round__flight="consolation")
        for x in (p.entry1_id, p.entry2_id)
    }
    assert main_losers_r1 <= consolation_players
    second_round_losers = {
        lower_seed(p)
        for p in Round.objects.get(tournament=t, flight="main", number=2).pairings.all()
    }
    if progressive:
        assert second_round_losers <= consolation_players  # later losers drop in too
    else:
        assert not second_round_losers & consolation_players
    # Nobody meets the same opponent twice across the flights.
    meetings = Counter(
        frozenset((p.entry1_id, p.entry2_id))
        for p in Pairing.objects.filter(round__tournament=t, entry2__isnull=False)
    )
    assert max(meetings.values()) == 1
    services.finish_tournament(t, by=admin)
    snap = queries.latest_standings(t)
    winners = {f: main_rows(snap, f)[0] for f in ("main", "consolation", "last_chance")}
    assert winners["main"]["seed"] == 1 and winners["main"]["place"] == "1"
    assert all(w["place"] == "1" for w in winners.values())
    view = queries.bracket_view(t, "consolation")
    assert view and all("feeds_from" in m for column in view for m in column)


# --- Double elimination


def test_double_elimination_club_night_of_six() -> None:
    fed, admin, _ = builders.federation_with_admin()
    t = builders.tournament(6, "double_elimination", federation=fed, by=admin)
    played = run_flight_rounds(t, admin)
    slots = set(Pairing.objects.filter(round__tournament=t).values_list("slot", flat=True))
    assert "GF1" in slots and "GF2" not in slots  # the winners' champion won: no reset
    assert any(s.startswith("L") for s in slots)
    bracket = registry.for_tournament(t).load_bracket(t)
    assert bracket.is_complete()
    assert Entry.objects.get(pk=bracket.champion()).seed == 1
    # A round pairs the winners' and the losers' matches of the same stage together.
    sections = [{s[0] for s in r.pairings.values_list("slot", flat=True)} for r in played]
    assert sections[0] == {"W"} and {"W", "L"} in sections


def test_double_elimination_reset_when_the_losers_champion_wins_the_first_final() -> None:
    fed, admin, _ = builders.federation_with_admin()
    t = builders.tournament(4, "double_elimination", federation=fed, by=admin)

    def underdog_in_final(p: Pairing) -> int:
        return lower_seed(p) if p.slot == "GF1" else higher_seed(p)

    run_flight_rounds(t, admin, chooser=underdog_in_final)
    slots = list(
        Pairing.objects.filter(round__tournament=t).order_by("id").values_list("slot", flat=True)
    )
    assert slots[-2:] == ["GF1", "GF2"]
    assert registry.for_tournament(t).load_bracket(t).is_complete()


# --- Swiss


def test_swiss_with_an_odd_field_a_withdrawal_and_byes() -> None:
    fed, admin, _ = builders.federation_with_admin()
    t = builders.tournament(9, "swiss", federation=fed, by=admin, rounds_planned=5)
    r1 = services.pair_next_round(t, by=admin)
    byes = [p for p in r1.pairings.all() if p.entry2_id is None]
    assert len(byes) == 1 and byes[0].table == 5  # the bye goes last
    play_round(r1, admin)
    r2 = play_round(services.pair_next_round(t, by=admin), admin)
    paired = {x for pair in pairs(r2) for x in pair if x}
    quitter = Entry.objects.filter(pk__in=paired).order_by("-seed").first()
    services.withdraw(quitter, by=admin)
    rest = run_flight_rounds(t, admin)
    assert len(rest) == 3
    for rnd in rest:
        assert quitter.pk not in {x for pair in pairs(rnd) for x in pair}
        # 8 players left: no bye from round 3.
        assert all(p.entry2_id is not None for p in rnd.pairings.all())
    bye_takers = Counter(
        p.entry1_id for p in Pairing.objects.filter(round__tournament=t, entry2__isnull=True)
    )
    assert max(bye_takers.values()) == 1
    meetings = Counter(
        frozenset((p.entry1_id, p.entry2_id))
        for p in Pairing.objects.filter(round__tournament=t, entry2__isnull=False)
    )
    assert max(meetings.values()) == 1
    services.finish_tournament(t, by=admin)
    snapshot = queries.latest_standings(t)
    rows = snapshot.rows
    assert len(rows) == 9
    quitter_row = next(r for r in rows if r["entry"] == quitter.pk)
    assert quitter_row["withdrawn"] is True
    bye_row = next(r for r in rows if r["entry"] == byes[0].entry1_id)
    assert bye_row["byes"] == 1 and bye_row["score"] >= 1  # a bye is a win by default
    # The order lives in the snapshot's list (PostgreSQL's jsonb does not keep key order).
    assert snapshot.tie_breaks == ["BH-C1", "BH", "SB", "DE"]
    assert set(rows[0]["tiebreaks"]) == {"BH-C1", "BH", "SB", "DE"}
    assert rows[0]["seed"] == 1 and rows[0]["score"] == 5


def test_swiss_until_two_losses_stops_pairing_the_eliminated() -> None:
    fed, admin, _ = builders.federation_with_admin()
    t = builders.tournament(12, "swiss", federation=fed, by=admin, max_losses=2)
    rounds = run_flight_rounds(t, admin)
    assert len(rounds) >= 3
    losses: Counter[int] = Counter()
    for rnd in rounds:
        paired = {x for pair in pairs(rnd) for x in pair if x}
        assert not {e for e, n in losses.items() if n >= 2} & paired
        for p in rnd.pairings.filter(entry2__isnull=False):
            losses[lower_seed(p)] += 1
    with pytest.raises(ValidationError) as err:
        services.pair_next_round(t, by=admin)
    assert err.value.code == "event_finished"
    snap = services.compute_standings(t)
    assert snap.rows[0]["losses"] <= 1 and snap.rows[0]["seed"] == 1


def test_swiss_late_entry_is_paired_from_the_next_round_with_no_wins() -> None:
    fed, admin, _ = builders.federation_with_admin()
    t = builders.tournament(6, "swiss", federation=fed, by=admin, rounds_planned=3)
    play_round(services.pair_next_round(t, by=admin), admin)
    newcomer = builders.players(fed, 1)[0]
    with pytest.raises(ValidationError):
        services.add_entry(t, newcomer, by=admin)  # running: only as a late entry
    late = services.add_entry(t, newcomer, by=admin, late=True)
    assert late.late and late.status == EntryStatus.CHECKED_IN
    r2 = services.pair_next_round(t, by=admin)
    bye = r2.pairings.get(entry2__isnull=True)
    # Seven players: the late entry (no wins) is among the lowest records and takes the bye.
    assert late.pk in {x for pair in pairs(r2) for x in pair}
    assert bye.entry1_id == late.pk
    play_round(r2, admin)
    row = next(r for r in services.compute_standings(t).rows if r["entry"] == late.pk)
    assert row["late"] and row["byes"] == 1


# --- Round robin


def test_round_robin_berger_tables_with_an_odd_field() -> None:
    fed, admin, _ = builders.federation_with_admin()
    t = builders.tournament(5, "round_robin", federation=fed, by=admin, bye_is_win=False)
    rounds = run_flight_rounds(t, admin)
    assert len(rounds) == 5  # 6 numbers (one dummy): 5 rounds, a bye in each
    meetings = Counter(
        frozenset((p.entry1_id, p.entry2_id))
        for p in Pairing.objects.filter(round__tournament=t, entry2__isnull=False)
    )
    assert len(meetings) == 10 and set(meetings.values()) == {1}
    rows = services.compute_standings(t).rows
    assert [r["seed"] for r in rows] == [1, 2, 3, 4, 5]
    assert [r["wins"] for r in rows] == [4, 3, 2, 1, 0]  # a bye is not a win here
    assert {r["byes"] for r in rows} == {1}


def test_truncated_round_robin_and_a_withdrawal_forfeits_the_remaining_games() -> None:
    fed, admin, _ = builders.federation_with_admin()
    t = builders.tournament(6, "round_robin", federation=fed, by=admin, rounds_planned=3)
    play_round(services.pair_next_round(t, by=admin), admin)
    quitter = Entry.objects.get(tournament=t, seed=6)
    services.withdraw(quitter, by=admin)
    rest = run_flight_rounds(t, admin)
    assert len(rest) == 2
    forfeits = Pairing.objects.filter(round__in=rest).exclude(forfeit_winner=None)
    assert forfeits.count() == 2
    assert all(p.match_id is None for p in forfeits)  # no match for a forfeit
    rows = services.compute_standings(t).rows
    assert next(r for r in rows if r["entry"] == quitter.pk)["forfeits"] == 2


# --- Groups, then knock-out


def test_groups_then_knockout() -> None:
    fed, admin, _ = builders.federation_with_admin()
    t = builders.tournament(
        8, "groups_knockout", federation=fed, by=admin, groups=2, qualifiers_per_group=2
    )
    group_rounds = run_flight_rounds(t, admin, flight="main")  # groups first, then the knock-out
    flights = list(Round.objects.filter(tournament=t).values_list("flight", flat=True))
    assert flights.count("groups") == 3 and flights.count("main") == 2
    assert len(group_rounds) == 5
    group_pairings = Pairing.objects.filter(round__tournament=t, round__flight="groups")
    assert set(group_pairings.values_list("slot", flat=True)) == {"A", "B"}
    final = Round.objects.get(tournament=t, flight="main", number=2).pairings.get()
    assert sorted(seeds_of(t, [(final.entry1_id, final.entry2_id)])[0]) == [1, 2]
    rows = services.compute_standings(t).rows
    assert rows[0]["flight"] == "main" and rows[0]["seed"] == 1
    assert {r["group"] for r in rows if r["flight"] == "groups"} == {"A", "B"}


# --- Cup of several stages


def test_cup_ranked_by_total_wins_over_the_stages() -> None:
    fed, admin, _ = builders.federation_with_admin()
    t = builders.tournament(6, "cup", federation=fed, by=admin, rounds_planned=2)
    for _ in range(4):
        play_round(services.pair_next_round(t, by=admin), admin)
    assert sorted(set(Round.objects.filter(tournament=t).values_list("flight", flat=True))) == [
        "stage-1",
        "stage-2",
    ]
    rows = services.compute_standings(t).rows
    assert rows[0]["seed"] == 1 and rows[0]["score"] == 4
    assert sum(r["wins"] for r in rows) == 12  # 3 matches a round, 4 rounds


# --- Qualification


def test_qualifiers_enter_the_next_event_seeded_by_place() -> None:
    fed, admin, _ = builders.federation_with_admin()
    source = builders.tournament(8, "swiss", federation=fed, by=admin, rounds_planned=3)
    run_flight_rounds(source, admin)
    final = builders.tournament(
        0,
        "single_elimination",
        federation=fed,
        by=admin,
        register=False,
        start=False,
        qualifies_from=source,
        qualifying_places=2,
    )
    with pytest.raises(ValidationError, match="not finished"):
        services.enter_qualifiers(final, by=admin)
    services.finish_tournament(source, by=admin)
    entries = services.enter_qualifiers(final, by=admin)
    rows = queries.latest_standings(source).rows
    source_players = {e.pk: e.player_id for e in Entry.objects.filter(tournament=source)}
    assert [e.player_id for e in entries] == [source_players[r["entry"]] for r in rows[:2]]
    assert [e.seed for e in entries] == [1, 2]
    # Again: nothing doubles.
    services.enter_qualifiers(final, by=admin)
    assert Entry.objects.filter(tournament=final).count() == 2
    assert final.state == TournamentState.DRAFT


def test_a_new_cup_stage_waits_for_the_last_round_of_the_previous_one() -> None:
    fed, admin, _ = builders.federation_with_admin()
    t = builders.tournament(4, "cup", federation=fed, by=admin, rounds_planned=1)
    first = services.pair_next_round(t, by=admin)
    assert first.flight == "stage-1"
    services.start_round(first, by=admin)
    with pytest.raises(ValidationError, match="still open"):
        services.pair_next_round(t, by=admin)
    for p in first.pairings.all():
        builders.confirm_result(p, higher_seed(p))
    services.close_round(first, by=admin)
    assert services.pair_next_round(t, by=admin).flight == "stage-2"


def test_the_knockout_waits_for_the_group_stage_to_close() -> None:
    fed, admin, _ = builders.federation_with_admin()
    t = builders.tournament(
        4, "groups_knockout", federation=fed, by=admin, groups=2, qualifiers_per_group=1
    )
    group_round = services.pair_next_round(t, by=admin)
    assert group_round.flight == "groups" and group_round.pairings.count() == 2
    play_round(group_round, admin, close=False)
    assert not groups_knockout.group_stage_complete(t)
    with pytest.raises(ValidationError, match="still open"):
        services.pair_next_round(t, by=admin)
    services.close_round(group_round, by=admin)
    final = services.pair_next_round(t, by=admin)
    assert final.flight == "main"
    assert sorted(seeds_of(t, pairs(final))[0]) == [1, 2]  # the group winners


def test_a_result_overridden_after_the_next_match_was_paired_keeps_the_draw() -> None:
    fed, admin, _ = builders.federation_with_admin()
    t = builders.tournament(4, "single_elimination", federation=fed, by=admin)
    first = play_round(services.pair_next_round(t, by=admin), admin)
    final = services.pair_next_round(t, by=admin)
    top = first.pairings.get(slot="M1-1")
    winner_side = top.match.winner
    # The organizer corrects the first result after the final was paired.
    builders.override_result(top, top.entry2_id if winner_side == 1 else top.entry1_id, admin)
    new_winner = top.entry2_id if winner_side == 1 else top.entry1_id
    bracket = registry.for_tournament(t).load_bracket(
        t
    )  # no error: the draw follows the corrected result
    assert new_winner in bracket.players("M2-1")
    # The final (paired, not started) is brought in line when it starts.
    services.start_round(final, by=admin)
    pairing = final.pairings.get()
    assert new_winner in (pairing.entry1_id, pairing.entry2_id)
    assert {pairing.match.player1_id, pairing.match.player2_id} == {
        pairing.entry1.player_id,
        pairing.entry2.player_id,
    }
