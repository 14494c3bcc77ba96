"""Match pages and result reports on the site: report, confirm, dispute, the
arbiter's decision, the organizer's override, stale forms, clocks, loss on
time, arranging a match, "my matches"."""

from __future__ import annotations

import datetime

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from clubs.models import Role
from games import exports, queries, services
from games.models import (
    ClockMode,
    Match,
    MatchState,
    ReportStatus,
    ResultReport,
    ResultStatus,
    TurnKind,
)
from tests.factories import (
    ClubFactory,
    DisciplineFactory,
    FederationFactory,
    MatchFactory,
    MembershipFactory,
    PlayerFactory,
    UserFactory,
    grant,
)
from tests.games.helpers import play_out, recorded_ago, user_of

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


def page(client, match: Match) -> str:  # type: ignore[no-untyped-def]
    response = client.get(reverse("games:match", args=[match.pk]), **EN)
    assert response.status_code == 200
    return response.content.decode()


def post(client, name: str, pk: int, data: dict, **extra):  # type: ignore[no-untyped-def]
    return client.post(reverse(f"games:{name}", args=[pk]), data, **EN, **extra)


def arbiter_of(match: Match):  # type: ignore[no-untyped-def]
    user = UserFactory()
    grant(user, Role.FEDERATION_ADMIN, match.federation)
    return user


@pytest.fixture
def match() -> Match:
    return MatchFactory(recorded=False, length=5)


def report_5_3(client, match: Match):  # type: ignore[no-untyped-def]
    client.force_login(user_of(match, 0))
    return post(client, "match_report", match.pk, {"score1": 5, "score2": 3, "current": ""})


# --- Reporting, confirming, disputing


def test_a_player_reports_and_the_opponent_confirms(client, match) -> None:
    response = report_5_3(client, match)
    assert response.status_code == 302
    report = match.reports.get()
    assert (report.score1, report.score2, report.status) == (5, 3, ReportStatus.PENDING)
    # The reporter cannot confirm their own report: no confirm form for them.
    assert 'id="confirm-form"' not in page(client, match)

    client.force_login(user_of(match, 1))
    html = page(client, match)
    assert 'id="confirm-form"' in html and 'id="dispute-form"' in html
    deadline = report.deadline
    assert deadline is not None and "Confirm or dispute by" in html
    response = post(client, "report_confirm", report.pk, {"report": report.pk, "status": "pending"})
    assert response.status_code == 302
    match.refresh_from_db()
    assert (match.score1, match.score2, match.winner) == (5, 3, 1)
    assert match.result_status == ResultStatus.CONFIRMED
    html = page(client, match)
    assert 'id="official-result"' in html and "5–3" in html
    assert 'id="report-form"' not in html  # a confirmed result changes only by override


def test_the_report_with_its_games_keeps_the_log(client, match) -> None:
    client.force_login(user_of(match, 0))
    rows = {
        "games-TOTAL_FORMS": "9",
        "games-INITIAL_FORMS": "0",
        "games-MIN_NUM_FORMS": "0",
        "games-MAX_NUM_FORMS": "60",
        "games-0-winner": "1",
        "games-0-points": "2",
        "games-0-result": "mars",
        "games-1-winner": "2",
        "games-1-points": "3",
        "games-1-cube": "3",
        "games-2-winner": "1",
        "games-2-points": "3",
        "games-2-cube": "1",
        "games-2-result": "koks",
    }
    response = post(
        client, "match_report", match.pk, {"score1": 5, "score2": 3, "current": "", **rows}
    )
    assert response.status_code == 302
    report = match.reports.get()
    assert report.games == [
        {"number": 1, "winner": 1, "points": 2, "result": "mars", "cube": 1},
        {"number": 2, "winner": 2, "points": 3, "result": "", "cube": 3},
        {"number": 3, "winner": 1, "points": 3, "result": "koks", "cube": 1},
    ]


def test_a_log_that_does_not_add_up_is_shown_on_the_form(client, match) -> None:
    client.force_login(user_of(match, 0))
    rows = {
        "games-TOTAL_FORMS": "2",
        "games-INITIAL_FORMS": "0",
        "games-MIN_NUM_FORMS": "0",
        "games-MAX_NUM_FORMS": "60",
        "games-0-winner": "1",
        "games-0-points": "2",
        "games-1-winner": "1",
        "games-1-points": "1",
    }
    response = post(
        client, "match_report", match.pk, {"score1": 5, "score2": 3, "current": "", **rows}
    )
    assert response.status_code == 400
    assert "The games add up to 3–0" in response.content.decode()
    assert not ResultReport.objects.exists()


def test_an_impossible_score_is_refused_with_the_reason(client, match) -> None:
    client.force_login(user_of(match, 0))
    response = post(client, "match_report", match.pk, {"score1": 4, "score2": 3, "current": ""})
    assert response.status_code == 400
    assert "the winner must reach 5 points" in response.content.decode()
    assert not ResultReport.objects.exists()


def test_a_mat_file_gives_the_score_and_the_games(client) -> None:
    source = MatchFactory(length=3)
    play_out(source, seed=7)
    text = exports.mat_text(source)
    target = MatchFactory(
        recorded=False,
        length=3,
        player1=source.player1,
        player2=source.player2,
        discipline=source.discipline,
    )
    client.force_login(user_of(target, 0))
    upload = SimpleUploadedFile("match.mat", text.encode(), content_type="text/plain")
    response = post(client, "match_report", target.pk, {"mat_file": upload, "current": ""})
    assert response.status_code == 302
    report = target.reports.get()
    expected = source.reports.get()
    assert (report.score1, report.score2) == (expected.score1, expected.score2)
    assert [g["points"] for g in report.games] == [
        g.points for g in source.games.order_by("number")
    ]
    assert report.mat_text == text


def test_a_dispute_needs_a_reason_and_goes_to_the_arbiter(client, match) -> None:
    report_5_3(client, match)
    report = match.reports.get()
    client.force_login(user_of(match, 1))
    response = post(client, "report_dispute", report.pk, {"report": report.pk, "status": "pending"})
    assert response.status_code == 400
    assert "This field is required." in response.content.decode()
    post(
        client,
        "report_dispute",
        report.pk,
        {"report": report.pk, "status": "pending", "reason": "Game 3 was a single"},
    )
    report.refresh_from_db()
    assert report.status == ReportStatus.DISPUTED

    arbiter = arbiter_of(match)
    client.force_login(arbiter)
    disputes = client.get(reverse("games:disputes"), **EN).content.decode()
    assert f'id="dispute-{report.pk}"' in disputes and "Game 3 was a single" in disputes
    response = post(
        client,
        "report_decide",
        report.pk,
        {
            "report": report.pk,
            "status": "disputed",
            "decision": "set",
            "score1": 5,
            "score2": 2,
            "reason": "Scoresheet checked",
            "next": reverse("games:disputes"),
        },
    )
    assert response.status_code == 302 and response["Location"] == reverse("games:disputes")
    match.refresh_from_db()
    assert (match.score1, match.score2, match.result_status) == (5, 2, ResultStatus.CONFIRMED)
    html = page(client, match)
    history = html[html.index('id="history"') :]
    assert history.count('class="report-version"') == 2
    assert "Scoresheet checked" in history and "Game 3 was a single" in history
    assert 'data-status="rejected"' in history and 'data-status="confirmed"' in history
    # Nothing left to decide.
    assert "No disputed results" in client.get(reverse("games:disputes"), **EN).content.decode()


def test_the_disputes_page_lists_only_what_the_user_may_decide(client, match) -> None:
    other = MatchFactory(recorded=False, length=5)
    for m in (match, other):
        report = services.submit_report(m, by=user_of(m, 0), score1=5, score2=0)
        services.dispute_report(report, by=user_of(m, 1), reason="no")
    client.force_login(arbiter_of(match))
    html = client.get(reverse("games:disputes"), **EN).content.decode()
    assert f"dispute-{match.reports.get().pk}" in html
    assert f"dispute-{other.reports.get().pk}" not in html
    # Someone else's decision is refused by the rule, and nothing changes.
    client.force_login(arbiter_of(other))
    report = match.reports.get()
    response = post(
        client,
        "report_decide",
        report.pk,
        {"report": report.pk, "status": "disputed", "decision": "uphold", "reason": "x"},
    )
    assert response.status_code == 403
    report.refresh_from_db()
    assert report.status == ReportStatus.DISPUTED


def test_a_stale_answer_is_refused_with_a_message(client, match) -> None:
    report_5_3(client, match)
    old = match.reports.get()
    # Player 1 corrects the report while player 2 still has the old page open.
    post(client, "match_report", match.pk, {"score1": 5, "score2": 4, "current": old.pk})
    new = match.reports.get(status=ReportStatus.PENDING)
    assert new.pk != old.pk
    client.force_login(user_of(match, 1))
    response = post(
        client, "report_confirm", old.pk, {"report": old.pk, "status": "pending"}, follow=True
    )
    assert response.status_code == 200
    assert "The result changed while you were looking at it" in response.content.decode()
    match.refresh_from_db()
    assert match.result_status == ResultStatus.PENDING
    assert not old.responses.exists() and not new.responses.exists()
    # A report form opened before another report is refused too.
    client.force_login(user_of(match, 0))
    response = post(client, "match_report", match.pk, {"score1": 5, "score2": 1, "current": old.pk})
    assert response.status_code == 302
    assert match.reports.get(status=ReportStatus.PENDING).pk == new.pk


def test_a_decision_on_a_result_no_longer_disputed_is_refused(client, match) -> None:
    report = services.submit_report(match, by=user_of(match, 0), score1=5, score2=3)
    services.dispute_report(report, by=user_of(match, 1), reason="no")
    arbiter = arbiter_of(match)
    services.decide_dispute(report, by=arbiter, uphold=True, reason="fine")
    client.force_login(arbiter)
    response = post(
        client,
        "report_decide",
        report.pk,
        {
            "report": report.pk,
            "status": "disputed",
            "decision": "set",
            "score1": 5,
            "score2": 0,
            "reason": "late",
        },
        follow=True,
    )
    assert response.status_code == 200
    assert "The result changed while you were looking at it" in response.content.decode()
    match.refresh_from_db()
    assert (match.score1, match.score2) == (5, 3)


def test_the_organizer_overrides_with_a_reason(client, match) -> None:
    report = services.submit_report(match, by=user_of(match, 0), score1=5, score2=3)
    services.confirm_report(report, by=user_of(match, 1))
    organizer = arbiter_of(match)
    client.force_login(organizer)
    assert 'id="override-form"' in page(client, match)
    response = post(
        client,
        "match_override",
        match.pk,
        {"score1": 0, "score2": 5, "reason": "", "version": report.pk},
    )
    assert response.status_code == 400  # the reason is required
    response = post(
        client,
        "match_override",
        match.pk,
        {"score1": 0, "score2": 5, "forfeit": "on", "reason": "No-show", "version": report.pk},
    )
    assert response.status_code == 302
    match.refresh_from_db()
    assert (match.score1, match.score2, match.winner, match.forfeit) == (0, 5, 2, True)
    statuses = list(match.reports.order_by("id").values_list("status", flat=True))
    assert statuses == [ReportStatus.SUPERSEDED, ReportStatus.CONFIRMED]
    assert "Won by forfeit." in page(client, match)
    # Players may not override.
    client.force_login(user_of(match, 0))
    assert 'id="override-form"' not in page(client, match)
    response = post(
        client, "match_override", match.pk, {"score1": 5, "score2": 0, "reason": "mine"}
    )
    assert response.status_code == 403


def test_a_recorded_match_is_official_when_it_ends(client) -> None:
    recorded = MatchFactory(length=1)
    play_out(recorded, seed=3)
    recorded.refresh_from_db()
    assert recorded.result_status == ResultStatus.CONFIRMED
    for side in (0, 1):
        client.force_login(user_of(recorded, side))
        html = page(client, recorded)
        assert 'id="confirm-form"' not in html and 'id="report-form"' not in html
        assert "move-by-move record" in html


# --- Clocks and loss on time


@pytest.mark.parametrize(
    ("mode", "reserve", "per_point", "move", "label"),
    [
        (ClockMode.DELAY, 0, 120, 12, "2 min per point + 12 s delay"),
        (ClockMode.INCREMENT, 18 * 60, 0, 8, "18 min + 8 s"),
        (ClockMode.DELAY, 90, 0, 0, "1 min 30 s"),
        (ClockMode.NONE, 0, 0, 0, "no clock"),
    ],
)
def test_the_time_control_in_words(client, mode, reserve, per_point, move, label) -> None:
    clocked = MatchFactory(
        clock_mode=mode,
        clock_reserve_seconds=reserve,
        clock_per_point_seconds=per_point,
        clock_move_seconds=move,
    )
    assert f'<dd id="clock">{label}</dd>' in page(client, clocked)


def test_the_clock_readings_of_recorded_turns_are_shown(client) -> None:
    clocked = MatchFactory(clock_mode=ClockMode.DELAY, clock_per_point_seconds=120, length=3)
    white = user_of(clocked, 0)
    services.record_turn(clocked, by=white, number=1, kind=TurnKind.OPENING, dice=[3, 1])
    recorded_ago(clocked, 8.5)  # no delay to spend: the server charges White 8.5 s
    services.record_turn(
        clocked, by=white, number=2, kind=TurnKind.PLAY, dice=[3, 1], moves="8/5 6/5"
    )
    html = page(client, clocked)
    assert "5:51" in html and "6:00" in html
    assert queries.clock_reading(3_725_000) == "1:02:05"


def test_the_opponent_records_a_loss_on_time(client) -> None:
    clocked = MatchFactory(clock_mode=ClockMode.INCREMENT, clock_reserve_seconds=600, length=3)
    services.record_turn(
        clocked, by=user_of(clocked, 0), number=1, kind=TurnKind.OPENING, dice=[3, 1]
    )
    recorded_ago(clocked, 601)  # White's ten minutes ran out by the server's clock
    client.force_login(user_of(clocked, 1))
    html = page(client, clocked)
    assert "My opponent's time ran out" in html
    # Player 2 cannot declare themselves the loser... nor the loser's opponent's loss.
    response = post(client, "match_timeout", clocked.pk, {"loser": 2, "version": 0})
    assert response.status_code == 403
    response = post(client, "match_timeout", clocked.pk, {"loser": 1, "version": 0})
    assert response.status_code == 302
    clocked.refresh_from_db()
    assert clocked.lost_on_time and clocked.state == MatchState.FINISHED
    report = clocked.reports.get()
    assert (report.score1, report.score2) == (0, 3)
    html = page(client, clocked)
    assert "Decided on time" in html and "loss on time" in html


def test_an_outsider_cannot_record_a_loss_on_time(client) -> None:
    clocked = MatchFactory(clock_mode=ClockMode.DELAY, clock_reserve_seconds=600)
    client.force_login(UserFactory())
    assert 'id="timeout"' not in page(client, clocked)
    response = post(client, "match_timeout", clocked.pk, {"loser": 1, "version": 0})
    assert response.status_code == 403
    assert not clocked.games.exists()


# --- Arranging a match, my matches


def test_a_player_challenges_a_player_of_their_federation(client) -> None:
    me = PlayerFactory(user=UserFactory())
    opponent = PlayerFactory(federation=me.federation)
    stranger = PlayerFactory()  # another federation
    client.force_login(me.user)
    form = client.get(reverse("games:match_new"), **EN).content.decode()
    assert str(opponent.pk) in form and f'value="{stranger.pk}"' not in form
    response = client.post(
        reverse("games:match_new"),
        {
            "player1": me.pk,
            "player2": opponent.pk,
            "discipline": DisciplineFactory().pk,
            "length": 7,
            "recorded": "",
            "clock_mode": ClockMode.DELAY,
            "reserve_minutes": "",
            "per_point_minutes": 2,
            "move_seconds": 12,
        },
        **EN,
    )
    created = Match.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("games:match", args=[created.pk])
    assert (created.player1, created.player2, created.length) == (me, opponent, 7)
    assert (created.clock_per_point_seconds, created.clock_move_seconds) == (120, 12)
    assert created.federation == me.federation and created.created_by == me.user
    assert not created.recorded


def test_a_match_with_a_player_of_another_federation_is_refused(client) -> None:
    me = PlayerFactory(user=UserFactory())
    stranger = PlayerFactory()
    client.force_login(me.user)
    response = client.post(
        reverse("games:match_new"),
        {
            "player1": me.pk,
            "player2": stranger.pk,
            "discipline": DisciplineFactory().pk,
            "length": 5,
            "clock_mode": ClockMode.NONE,
        },
        **EN,
    )
    assert response.status_code == 200
    assert not Match.objects.exists()


def test_staff_arrange_matches_between_players_they_manage(client) -> None:
    federation = FederationFactory()
    club = ClubFactory(federation=federation)
    first = MembershipFactory(club=club, player__federation=federation).player
    second = MembershipFactory(club=club, player__federation=federation).player
    club_admin = UserFactory()
    grant(club_admin, Role.CLUB_ADMIN, club)
    client.force_login(club_admin)
    response = client.post(
        reverse("games:match_new"),
        {
            "player1": first.pk,
            "player2": second.pk,
            "discipline": DisciplineFactory().pk,
            "length": 3,
            "recorded": "on",
            "clock_mode": ClockMode.NONE,
        },
        **EN,
    )
    assert response.status_code == 302
    assert Match.objects.get().recorded


def test_a_user_without_a_profile_cannot_arrange_matches(client) -> None:
    client.force_login(UserFactory())
    assert client.get(reverse("games:match_new"), **EN).status_code == 403


def test_my_matches_lists_those_awaiting_me_first(client) -> None:
    me = PlayerFactory(user=UserFactory())
    older = MatchFactory(player1=me, recorded=False, length=3)
    newer = MatchFactory(player1=me, recorded=False, length=3)
    not_mine = MatchFactory()
    services.submit_report(older, by=user_of(older, 1), score1=3, score2=1)
    client.force_login(me.user)
    html = client.get(reverse("games:match_list"), **EN).content.decode()
    first, second = (
        html.index(reverse("games:match", args=[older.pk])),
        html.index(reverse("games:match", args=[newer.pk])),
    )
    assert first < second  # awaiting my confirmation, although older
    assert "Results awaiting your confirmation: 1" in html
    assert reverse("games:match", args=[not_mine.pk]) not in html


@pytest.mark.parametrize("count", [1, 12])
def test_my_matches_query_count_is_constant(client, django_assert_num_queries, count) -> None:
    me = PlayerFactory(user=UserFactory())
    for _ in range(count):
        m = MatchFactory(player1=me, recorded=False, length=3)
        services.submit_report(m, by=user_of(m, 1), score1=3, score2=0)
    client.force_login(me.user)
    client.get(reverse("games:match_list"))  # content types cached
    # session, user, own player, managed players (roles), matches
    with django_assert_num_queries(5):
        response = client.get(reverse("games:match_list"), **EN)
    assert response.content.decode().count("your confirmation is awaited") == count


@pytest.mark.parametrize(("seed", "length"), [(3, 1), (5, 5)])
def test_the_match_page_query_count_does_not_grow_with_games(
    client, django_assert_num_queries, seed, length
) -> None:
    recorded = MatchFactory(length=length)
    play_out(recorded, seed=seed)
    client.force_login(user_of(recorded, 0))
    page(client, recorded)  # content types cached
    # session, user, roles, match, games, turns, reports, responses, the
    # tournament pairing it may belong to (games.belonging), and its analysis
    # (analysis.extras, a block of the page for a finished recorded match)
    with django_assert_num_queries(10):
        page(client, recorded)


def test_a_private_federations_match_is_not_shown_to_strangers(client) -> None:
    hidden = MatchFactory(federation=FederationFactory(is_public=False))
    assert client.get(reverse("games:match", args=[hidden.pk])).status_code == 404
    client.force_login(user_of(hidden, 0))
    assert client.get(reverse("games:match", args=[hidden.pk])).status_code == 200


def test_overdue_reports_show_their_deadline_in_the_past(client, match) -> None:
    report = services.submit_report(match, by=user_of(match, 0), score1=5, score2=3)
    ResultReport.objects.filter(pk=report.pk).update(
        deadline=report.deadline - datetime.timedelta(days=5)
    )
    assert services.confirm_overdue_reports() == 1
    match.refresh_from_db()
    assert match.result_status == ResultStatus.CONFIRMED
    assert "confirmed after the deadline" in page(client, match)
