"""The organizer console: creating a tournament, running it from its page, the
printable sheets.  Every change goes through the services; these tests check
what the pages send them, what they show back, and that stale forms do nothing."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from clubs.models import Role, RoleAssignment
from tests.factories import ClubFactory, PlayerFactory, UserFactory, grant
from tests.tournaments import builders
from tournaments import services
from tournaments.models import (
    Entry,
    EntryStatus,
    Pairing,
    Round,
    RoundState,
    StandingsSnapshot,
    Tournament,
    TournamentState,
)

pytestmark = pytest.mark.django_db


def console(t: Tournament) -> str:
    return reverse("tournaments:console", args=[t.pk])


def messages_of(response) -> list[str]:  # type: ignore[no-untyped-def]
    return [str(m) for m in response.context["messages"]] if response.context else []


def follow(client, url: str, data: dict) -> tuple[object, str]:  # type: ignore[no-untyped-def]
    response = client.post(url, data, follow=True)
    assert response.status_code == 200, response.status_code
    return response, response.content.decode()


@pytest.fixture
def running():  # type: ignore[no-untyped-def]
    """A running Swiss of 6 players with its federation's admin."""
    federation, admin, _discipline = builders.federation_with_admin()
    t = builders.tournament(6, "swiss", federation=federation, by=admin, rounds_planned=3)
    return t, admin


# --- Who may use the console


def test_the_console_needs_a_manager(client, running) -> None:  # type: ignore[no-untyped-def]
    t, _admin = running
    response = client.get(console(t))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    client.force_login(UserFactory())
    assert client.get(console(t)).status_code == 403
    assert client.get(reverse("tournaments:new")).status_code == 403
    assert client.get(reverse("tournaments:print_pairings", args=[t.pk, 1])).status_code == 403


def test_an_organizer_of_the_tournament_runs_it(client, running) -> None:  # type: ignore[no-untyped-def]
    t, _admin = running
    organizer = UserFactory()
    grant(organizer, Role.ORGANIZER, t)
    client.force_login(organizer)
    assert client.get(console(t)).status_code == 200
    html = client.get(reverse("tournaments:organize")).content.decode()
    assert console(t) in html
    # ... but may not create tournaments of the federation.
    assert 'id="new-tournament"' not in html


@pytest.mark.parametrize("count", [2, 12])
def test_the_list_shows_managed_tournaments_in_constant_queries(
    client, django_assert_num_queries, count
) -> None:  # type: ignore[no-untyped-def]
    federation, admin, discipline = builders.federation_with_admin()
    club = ClubFactory(federation=federation)
    for k in range(count):
        services.create_tournament(
            by=admin,
            federation=federation,
            club=club if k % 2 else None,
            name=f"Cup {k}",
            discipline=discipline,
            format="swiss",
            rounds_planned=3,
        )
    other, other_admin, _d = builders.federation_with_admin()
    services.create_tournament(
        by=other_admin,
        federation=other,
        name="Elsewhere",
        discipline=discipline,
        format="swiss",
        rounds_planned=3,
    )
    client.force_login(admin)
    # Session and user, the roles, the tournaments, the federations and clubs a
    # tournament may be created for (the "New tournament" button), and the header's
    # counts of disputes and claims (tournaments.navigation).
    with django_assert_num_queries(8):
        html = client.get(reverse("tournaments:organize")).content.decode()
    assert len(re.findall(r'href="/organize/\d+/"', html)) == count
    assert "Elsewhere" not in html
    assert 'id="new-tournament"' in html


@pytest.mark.parametrize("size,rounds", [(4, 1), (12, 3)])
def test_the_console_costs_the_same_queries_for_any_field(
    client, django_assert_num_queries, size, rounds
) -> None:  # type: ignore[no-untyped-def]
    federation, admin, _d = builders.federation_with_admin()
    t = builders.tournament(size, "swiss", federation=federation, by=admin, rounds_planned=4)
    for _ in range(rounds):
        builders.play_round(services.pair_next_round(t, by=admin), admin)
    services.compute_standings(t)
    services.start_round(services.pair_next_round(t, by=admin), by=admin)
    client.force_login(admin)
    # Session, user, tournament, roles, entries, rounds, pairings, standings, staff,
    # and the header's counts of disputes and claims (tournaments.navigation).
    with django_assert_num_queries(11):
        html = client.get(console(t)).content.decode()
    assert html.count('class="table-no"') == Pairing.objects.filter(round__tournament=t).count()


# --- Creating a tournament


def create_data(federation, discipline, **extra) -> dict:  # type: ignore[no-untyped-def]
    data = {
        "host": f"federation:{federation.pk}",
        "name": "Spring Swiss",
        "slug": "",
        "discipline": discipline.pk,
        "format": "swiss",
        "rounds_planned": "5",
        "seeding": "rating",
        "match_length": "7",
        "clock_mode": "delay",
        "reserve_minutes": "18",
        "per_point_minutes": "0",
        "move_seconds": "8",
        "bye_is_win": "on",
        "remaining_ties": "share",
        "is_public": "on",
        "publish_pairings": "on",
        "publish_results": "on",
        "lengths-TOTAL_FORMS": "3",
        "lengths-INITIAL_FORMS": "0",
        "lengths-MIN_NUM_FORMS": "0",
        "lengths-MAX_NUM_FORMS": "30",
        "lengths-0-flight": "main",
        "lengths-0-round": "final",
        "lengths-0-length": "13",
        "lengths-1-flight": "main",
        "lengths-1-round": "1",
        "lengths-1-length": "9",
        "lengths-2-flight": "main",
        "lengths-2-round": "",
        "lengths-2-length": "",
        "tb_sb": "2",
        "tb_bh_c1": "1",
        "tb_de": "3",
    }
    data.update(extra)
    return data


def test_creating_a_tournament_sends_every_setting(client) -> None:  # type: ignore[no-untyped-def]
    federation, admin, discipline = builders.federation_with_admin()
    client.force_login(admin)
    form_page = client.get(reverse("tournaments:new")).content.decode()
    assert f'value="federation:{federation.pk}"' in form_page
    response = client.post(reverse("tournaments:new"), create_data(federation, discipline))
    t = Tournament.objects.get(name="Spring Swiss")
    assert response.status_code == 302 and response["Location"] == console(t)
    assert (t.federation, t.club, t.format, t.rounds_planned) == (federation, None, "swiss", 5)
    assert t.tie_breaks == ["BH-C1", "SB", "DE"]
    assert t.match_lengths == {"main": {"final": 13, "1": 9}}
    assert t.length_for("main", 1) == 9 and t.length_for("main", 5, final=True) == 13
    assert (t.clock_mode, t.clock_reserve_seconds, t.clock_move_seconds) == ("delay", 1080, 8)
    assert (t.publish_results, t.publish_standings) == (True, False)
    assert t.state == TournamentState.DRAFT and t.slug == "spring-swiss"


def test_a_club_admin_creates_a_tournament_of_their_club(client) -> None:  # type: ignore[no-untyped-def]
    club = ClubFactory()
    user = UserFactory()
    grant(user, Role.CLUB_ADMIN, club)
    _f, _a, discipline = builders.federation_with_admin()
    client.force_login(user)
    data = create_data(club.federation, discipline, host=f"club:{club.pk}")
    client.post(reverse("tournaments:new"), data)
    t = Tournament.objects.get(name="Spring Swiss")
    assert (t.federation, t.club) == (club.federation, club)
    # Another federation is not offered.
    refused = client.post(
        reverse("tournaments:new"),
        create_data(club.federation, discipline, host=f"federation:{club.federation.pk}", name="X"),
    )
    assert refused.status_code == 400 and not Tournament.objects.filter(name="X").exists()


def test_form_errors_and_service_errors_show_on_the_form(client) -> None:  # type: ignore[no-untyped-def]
    federation, admin, discipline = builders.federation_with_admin()
    client.force_login(admin)
    twice = client.post(reverse("tournaments:new"), create_data(federation, discipline, tb_sb="1"))
    assert twice.status_code == 400
    assert "SB and BH-C1 both have the place 1" in twice.content.decode() or (
        "BH-C1 and SB both have the place 1" in twice.content.decode()
    )
    # The service refuses a Swiss without rounds or losses: the message is on its field.
    no_rounds = client.post(
        reverse("tournaments:new"), create_data(federation, discipline, rounds_planned="")
    )
    assert no_rounds.status_code == 400
    form = no_rounds.context["form"]
    assert form.errors["rounds_planned"] == ["A Swiss needs a number of rounds or of losses."]
    bad_round = client.post(
        reverse("tournaments:new"), create_data(federation, discipline, **{"lengths-1-round": "x"})
    )
    assert bad_round.status_code == 400
    row = bad_round.context["form"].lengths.forms[1]
    assert row.errors["round"] == ['Write a round number, "final", or leave it empty.']
    assert not Tournament.objects.exists()


def test_settings_change_only_what_the_state_allows(client, running) -> None:  # type: ignore[no-untyped-def]
    t, admin = running
    client.force_login(admin)
    page = client.get(reverse("tournaments:settings", args=[t.pk]))
    form = page.context["form"]
    data = {
        name: value
        for name, value in form.initial.items()
        if value is not None and not isinstance(value, bool)
    }
    for name, value in form.initial.items():
        if value is True:
            data[name] = "on"
    data.update(
        {
            "lengths-TOTAL_FORMS": "1",
            "lengths-INITIAL_FORMS": "0",
            "lengths-MIN_NUM_FORMS": "0",
            "lengths-MAX_NUM_FORMS": "30",
            "lengths-0-flight": "main",
            "lengths-0-round": "",
            "lengths-0-length": "",
            "name": "Renamed Swiss",
        }
    )
    response = client.post(reverse("tournaments:settings", args=[t.pk]), data)
    assert response.status_code == 302
    t.refresh_from_db()
    assert t.name == "Renamed Swiss" and t.format == "swiss"
    data["format"] = "round_robin"
    refused = client.post(reverse("tournaments:settings", args=[t.pk]), data)
    assert refused.status_code == 400
    assert "This setting cannot change while the tournament is running." in refused.content.decode()
    t.refresh_from_db()
    assert t.format == "swiss"


def test_pr_is_offered_now_that_matches_are_analysed(client, running) -> None:  # type: ignore[no-untyped-def]
    t, admin = running
    client.force_login(admin)
    new_form = client.get(reverse("tournaments:new")).context["form"]
    assert "tb_pr" in new_form.fields and "tb_aro" in new_form.fields
    assert "PR" in [field.label for field in new_form.tiebreak_fields()]
    Tournament.objects.filter(pk=t.pk).update(tie_breaks=["BH", "PR", "SB"])
    page = client.get(reverse("tournaments:settings", args=[t.pk]))
    form = page.context["form"]
    assert form.initial["tb_pr"] == 2
    assert "breaks no tie" not in str(form.fields["tb_pr"].help_text)


# --- State and entries


def test_the_next_step_moves_the_state_and_a_stale_button_does_nothing(client) -> None:  # type: ignore[no-untyped-def]
    federation, admin, discipline = builders.federation_with_admin()
    t = services.create_tournament(
        by=admin,
        federation=federation,
        name="Club night",
        discipline=discipline,
        format="swiss",
        rounds_planned=3,
    )
    client.force_login(admin)
    html = client.get(console(t)).content.decode()
    assert "Open registration" in html
    state_url = reverse("tournaments:state", args=[t.pk])
    response, html = follow(client, state_url, {"state": "registration", "from_state": "draft"})
    t.refresh_from_db()
    assert t.state == TournamentState.REGISTRATION
    assert "Open check-in" in html and "Start the tournament" in html
    # The same button again (a second tab): the tournament moved on; nothing happens.
    response, html = follow(client, state_url, {"state": "check_in", "from_state": "draft"})
    t.refresh_from_db()
    assert t.state == TournamentState.REGISTRATION
    assert any("Nothing was done" in m for m in messages_of(response))
    # A refused transition shows the service's reason.
    response, _html = follow(client, state_url, {"state": "running", "from_state": "registration"})
    assert any("at least two players" in m for m in messages_of(response))


def test_adding_players_by_search_checking_in_and_removing(client) -> None:  # type: ignore[no-untyped-def]
    federation, admin, discipline = builders.federation_with_admin()
    t = services.create_tournament(
        by=admin,
        federation=federation,
        name="Open",
        discipline=discipline,
        format="swiss",
        rounds_planned=3,
    )
    services.set_state(t, TournamentState.REGISTRATION, by=admin)
    mamedov = PlayerFactory(
        federation=federation, name_native="Мамедов Эльчин", name_latin="Mamedov Elchin"
    )
    PlayerFactory(federation=federation, name_native="Иванов Иван", name_latin="Ivanov Ivan")
    client.force_login(admin)
    found = client.get(console(t), {"q": "Мамедов"}).content.decode()
    assert "Mamedov Elchin" in found and "Ivanov" not in found
    add = reverse("tournaments:entry_add", args=[t.pk])
    response, _html = follow(client, add, {"player": mamedov.pk})
    entry = Entry.objects.get(tournament=t, player=mamedov)
    assert entry.status == EntryStatus.REGISTERED
    assert any("is entered" in m for m in messages_of(response))
    response, _html = follow(client, add, {"player": mamedov.pk})
    assert any("already entered" in m for m in messages_of(response))
    assert Entry.objects.filter(tournament=t).count() == 1
    # Search again: the entered player is marked, not offered twice.
    found = client.get(console(t), {"q": "Mamedov"}).content.decode()
    assert "subtle entered" in found

    check_in = reverse("tournaments:entry_check_in", args=[t.pk, entry.pk])
    follow(client, check_in, {"status": "registered"})
    entry.refresh_from_db()
    assert entry.status == EntryStatus.CHECKED_IN
    remove = reverse("tournaments:entry_withdraw", args=[t.pk, entry.pk])
    response, _html = follow(client, remove, {"status": "registered"})  # stale: checked in now
    assert any("Nothing was done" in m for m in messages_of(response))
    assert Entry.objects.filter(pk=entry.pk).exists()
    follow(client, remove, {"status": "checked_in"})
    assert not Entry.objects.filter(pk=entry.pk).exists()


def test_seeds_by_hand_by_rating_and_stale(client) -> None:  # type: ignore[no-untyped-def]
    federation, admin, _d = builders.federation_with_admin()
    t = builders.tournament(
        3, "swiss", federation=federation, by=admin, rounds_planned=2, start=False
    )
    entries = list(Entry.objects.filter(tournament=t).order_by("id"))
    client.force_login(admin)
    html = client.get(console(t)).content.decode()
    assert 'id="seeds-form"' in html and "Seed by rating" in html
    url = reverse("tournaments:seeds", args=[t.pk])
    shown = ",".join(
        str(e.pk) for e in sorted(entries, key=lambda e: (e.seed is None, e.seed or 0, e.pk))
    )
    data = {
        "entries": shown,
        f"seed_{entries[0].pk}": "3",
        f"seed_{entries[1].pk}": "1",
        f"seed_{entries[2].pk}": "2",
    }
    follow(client, url, data)
    assert [Entry.objects.get(pk=e.pk).seed for e in entries] == [3, 1, 2]
    # Two players on one seed: an error, nothing saved.
    shown = ",".join(
        str(pk)
        for pk in Entry.objects.filter(tournament=t)
        .order_by("seed", "id")
        .values_list("pk", flat=True)
    )
    clash = {"entries": shown, f"seed_{entries[0].pk}": "1", f"seed_{entries[1].pk}": "1"}
    response, _html = follow(client, url, clash)
    assert any("Seed 1 is given to" in m for m in messages_of(response))
    assert Entry.objects.get(pk=entries[0].pk).seed == 3
    # A page listing other entries is stale.
    response, _html = follow(client, url, {"entries": "1,2", f"seed_{entries[0].pk}": "2"})
    assert any("The list of entries has changed." in m for m in messages_of(response))
    # By rating: the highest rating (entered first by the builder) is seed 1.
    follow(client, url, {"by_rating": "1"})
    assert [Entry.objects.get(pk=e.pk).seed for e in entries] == [1, 2, 3]


# --- Rounds


def test_pair_edit_start_forfeit_close_a_round(client, running) -> None:  # type: ignore[no-untyped-def]
    t, admin = running
    client.force_login(admin)
    html = client.get(console(t)).content.decode()
    assert "Pair round 1" in html
    response, html = follow(
        client, reverse("tournaments:round_pair", args=[t.pk]), {"flight": "main", "seen": "0"}
    )
    rnd = Round.objects.get(tournament=t)
    assert rnd.pairings.count() == 3 and "Start round 1" in html
    # The same button again is stale.
    response, _html = follow(
        client, reverse("tournaments:round_pair", args=[t.pk]), {"flight": "main", "seen": "0"}
    )
    assert any("Another round was paired meanwhile." in m for m in messages_of(response))
    assert Round.objects.filter(tournament=t).count() == 1

    # Edit the pairings: a form of selects; the service's refusal shows on it.
    edit = reverse("tournaments:pairings_edit", args=[t.pk, rnd.pk])
    page = client.get(edit)
    form = page.context["form"]
    pairs = list(rnd.pairings.order_by("table").values_list("entry1_id", "entry2_id"))
    (a, b), (c, d), (e, f) = pairs
    data = {"version": form.fields["version"].initial}
    swapped = [(a, d), (c, b), (e, f)]
    for k, (x, y) in enumerate(swapped, start=1):
        data[f"t{k}_1"], data[f"t{k}_2"] = str(x), str(y)
    twice = dict(data, t3_2=str(b))
    refused = client.post(edit, twice)
    assert refused.status_code == 400
    assert "Paired more than once" in refused.content.decode()
    assert list(rnd.pairings.order_by("table").values_list("entry1_id", "entry2_id")) == pairs
    response = client.post(edit, data)
    assert response.status_code == 302
    assert list(rnd.pairings.order_by("table").values_list("entry1_id", "entry2_id")) == swapped
    stale = client.post(edit, data, follow=True)
    assert any("The pairings were changed meanwhile." in m for m in messages_of(stale))

    follow(
        client, reverse("tournaments:round_start", args=[t.pk, rnd.pk]), {"round_state": "paired"}
    )
    rnd.refresh_from_db()
    assert rnd.state == RoundState.STARTED
    html = client.get(console(t)).content.decode()
    pairings = list(rnd.pairings.select_related("match").order_by("table"))
    for p in pairings:
        assert reverse("games:match", args=[p.match_id]) in html
    # Closing with open tables names them.
    close = reverse("tournaments:round_close", args=[t.pk, rnd.pk])
    response, _html = follow(client, close, {"round_state": "started"})
    assert any("no confirmed result at tables 1, 2, 3" in m for m in messages_of(response))
    # A forfeit, and two results entered by the players.
    first = pairings[0]
    response = builders.inline_result(
        client, t, rnd, first.table, action="forfeit1", reason="did not appear"
    )
    assert response.status_code == 302
    first = Pairing.objects.select_related("match").get(pk=first.pk)
    assert first.forfeit_winner == 2 and first.match.forfeit
    for p in pairings[1:]:
        builders.confirm_result(p, p.entry1_id)
    response, html = follow(client, close, {"round_state": "started"})
    rnd.refresh_from_db()
    assert rnd.state == RoundState.CLOSED
    assert "Pair round 2" in html


def test_silent_round_toggle_and_stale_round_buttons(client, running) -> None:  # type: ignore[no-untyped-def]
    t, admin = running
    rnd = services.pair_next_round(t, by=admin)
    client.force_login(admin)
    silent = reverse("tournaments:round_silent", args=[t.pk, rnd.pk])
    follow(client, silent, {"was": "0", "silent": "1"})
    rnd.refresh_from_db()
    assert rnd.silent
    assert "silent" in client.get(console(t)).content.decode()
    response, _html = follow(client, silent, {"was": "0", "silent": "1"})
    assert any("Nothing was done" in m for m in messages_of(response))
    follow(client, silent, {"was": "1", "silent": "0"})
    rnd.refresh_from_db()
    assert not rnd.silent
    # A start button from a page where the round was already started.
    services.start_round(rnd, by=admin)
    response, _html = follow(
        client, reverse("tournaments:round_start", args=[t.pk, rnd.pk]), {"round_state": "paired"}
    )
    assert any("Round 1 is now started." in m for m in messages_of(response))


def test_standings_computed_and_published_from_the_console(client) -> None:  # type: ignore[no-untyped-def]
    federation, admin, _d = builders.federation_with_admin()
    t = builders.tournament(
        4,
        "swiss",
        federation=federation,
        by=admin,
        rounds_planned=2,
        publish_standings=False,
        tie_breaks=["BH", "SB"],
    )
    builders.play_round(services.pair_next_round(t, by=admin), admin)
    client.force_login(admin)
    follow(client, reverse("tournaments:standings_compute", args=[t.pk]), {})
    snapshot = StandingsSnapshot.objects.get(tournament=t)
    assert snapshot.published_at is None
    html = client.get(console(t)).content.decode()
    assert "Publish the standings after round 1" in html
    assert '<th class="num tb" data-code="BH">BH</th>' in html
    publish = reverse("tournaments:standings_publish", args=[t.pk, snapshot.pk])
    response, _html = follow(client, publish, {"digest": "older"})
    assert any("recomputed" in m for m in messages_of(response))
    snapshot.refresh_from_db()
    assert snapshot.published_at is None
    # Publishing asks first (issue 15): without the confirmation nothing is done.
    asked = client.post(publish, {"digest": snapshot.results_digest})
    assert asked.status_code == 200 and 'name="confirm" value="1"' in asked.content.decode()
    snapshot.refresh_from_db()
    assert snapshot.published_at is None
    follow(client, publish, {"digest": snapshot.results_digest, "confirm": "1"})
    snapshot.refresh_from_db()
    assert snapshot.published_at is not None


def test_staff_appointed_and_removed(client, running) -> None:  # type: ignore[no-untyped-def]
    t, admin = running
    arbiter = UserFactory(username="judge")
    client.force_login(admin)
    url = reverse("tournaments:staff_add", args=[t.pk])
    response, html = follow(client, url, {"username": "Judge", "role": Role.ARBITER})
    assignment = RoleAssignment.objects.get(user=arbiter, role=Role.ARBITER)
    assert assignment.scope_id == t.pk and "judge" in html
    response, _html = follow(client, url, {"username": "nobody", "role": Role.ORGANIZER})
    assert any("No active user is called nobody." in m for m in messages_of(response))
    follow(client, reverse("tournaments:staff_revoke", args=[t.pk, assignment.pk]), {})
    assert not RoleAssignment.objects.filter(pk=assignment.pk).exists()


def test_qualifiers_entered_from_a_finished_tournament(client) -> None:  # type: ignore[no-untyped-def]
    federation, admin, discipline = builders.federation_with_admin()
    source = builders.tournament(4, "single_elimination", federation=federation, by=admin)
    builders.run_flight_rounds(source, admin)
    services.finish_tournament(source, by=admin)
    final = services.create_tournament(
        by=admin,
        federation=federation,
        name="Final",
        discipline=discipline,
        format="swiss",
        rounds_planned=2,
        qualifies_from=source,
        qualifying_places=2,
    )
    client.force_login(admin)
    assert "Enter the qualifiers" in client.get(console(final)).content.decode()
    response, _html = follow(client, reverse("tournaments:qualifiers", args=[final.pk]), {})
    assert any("Qualifiers entered: 2." in m for m in messages_of(response))
    winners = set(
        Entry.objects.filter(tournament=source, seed__in=[1, 2]).values_list("player_id", flat=True)
    )
    assert (
        set(Entry.objects.filter(tournament=final).values_list("player_id", flat=True)) == winners
    )


# --- Printable sheets


def test_pairing_sheet_and_scoresheets(client, running) -> None:  # type: ignore[no-untyped-def]
    t, admin = running
    services.update_tournament(
        t, by=admin, clock_mode="delay", clock_reserve_seconds=1080, clock_move_seconds=8
    )
    services.withdraw(Entry.objects.get(tournament=t, seed=6), by=admin)
    rnd = services.pair_next_round(t, by=admin)
    client.force_login(admin)
    sheet = client.get(reverse("tournaments:print_pairings", args=[t.pk, rnd.pk])).content.decode()
    assert "@media print" in sheet
    assert "18 min, delay 8 s per move" in sheet
    for p in Pairing.objects.filter(round=rnd).select_related("entry1__player", "entry2__player"):
        assert str(p.entry1.player) in sheet
    assert "bye" in sheet  # five players: one has the bye
    sheets = client.get(
        reverse("tournaments:print_scoresheets", args=[t.pk, rnd.pk])
    ).content.decode()
    assert sheets.count('class="scoresheet"') == 2  # the bye needs no sheet
    assert "page-break-after: always" in sheets
    assert "match to 3 points" in sheets and "Arbiter" in sheets
    # A grid row per game of the longest usual match (5 games to 3 points).
    assert sheets.count('<tr><td class="num">5</td>') == 2
    assert '<tr><td class="num">6</td>' not in sheets


def test_standings_superseded_by_published_ones_are_not_offered(client) -> None:  # type: ignore[no-untyped-def]
    """Standings computed while another round was open and left unpublished under
    later published ones would change nothing public: the console does not offer them."""
    federation, admin, _d = builders.federation_with_admin()
    t = builders.tournament(
        4, "swiss", federation=federation, by=admin, rounds_planned=2, publish_standings=False
    )
    builders.play_round(services.pair_next_round(t, by=admin), admin)
    services.compute_standings(t)
    builders.play_round(services.pair_next_round(t, by=admin), admin)
    services.compute_standings(t)
    first, second = StandingsSnapshot.objects.filter(tournament=t).order_by("after_round")
    client.force_login(admin)
    publish_first = reverse("tournaments:standings_publish", args=[t.pk, first.pk])
    assert publish_first in client.get(console(t)).content.decode()
    services.publish_standings(second, by=admin)
    html = client.get(console(t)).content.decode()
    assert publish_first not in html
    assert "not published: later standings are" in html
    assert reverse("tournaments:standings_publish", args=[t.pk, second.pk]) not in html
