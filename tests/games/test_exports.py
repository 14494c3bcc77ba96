"""Match files: .mat/.sgf built from the stored turns, and .mat uploads.

Acceptance: a recorded match's .mat export replays (engine.records.matfile) to the
stored games and score, and importing the export re-creates an equal match.
"""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from clubs.models import Role
from engine.records.matfile import replay_mat
from engine.records.sgf import parse_sgf
from games import exports, services
from games.models import Game, Match, MatchState, ReportSource, Turn, TurnKind
from tests.factories import DisciplineFactory, MatchFactory, PlayerFactory, UserFactory, grant
from tests.games.helpers import play_out, user_of

pytestmark = pytest.mark.django_db


def stored_games(match: Match) -> list[tuple]:
    return [
        (g.number, g.score1_before, g.score2_before, g.crawford, g.winner, g.points, g.cube)
        for g in match.games.order_by("number")
    ]


def live_turns(match: Match) -> list[Turn]:
    return list(
        Turn.objects.filter(game__match=match, undone_at__isnull=True)
        .select_related("game")
        .order_by("game__number", "number")
    )


def stored_turns(match: Match) -> list[tuple]:
    """Each live turn: where, who, what, and the position after it."""
    return [
        (t.game.number, t.number, t.side, t.kind, t.dice, t.level, t.position_id)
        for t in live_turns(match)
    ]


@pytest.mark.parametrize(("length", "seed"), [(3, 7), (5, 11), (1, 2)])
def test_the_mat_export_replays_to_the_stored_games_and_score(length: int, seed: int) -> None:
    match = MatchFactory(length=length)
    play_out(match, seed=seed)
    match.refresh_from_db()
    assert match.state == MatchState.FINISHED

    text = exports.mat_text(match)
    replayed = replay_mat(text)

    games = list(match.games.order_by("number"))
    assert replayed["match_length"] == length
    assert [(g["number"], g["winner"], g["points"], g["cube"]) for g in replayed["games"]] == [
        (g.number, g.winner, g.points, g.cube) for g in games
    ]
    assert [g["crawford"] for g in replayed["games"]] == [g.crawford for g in games]
    report = match.reports.get(source=ReportSource.RECORD)
    assert tuple(replayed["final_score"]) == (report.score1, report.score2)
    assert f"{length} point match" in text


def test_importing_the_export_recreates_an_equal_match() -> None:
    original = MatchFactory(length=5)
    play_out(original, seed=5)
    original.refresh_from_db()
    text = exports.mat_text(original)

    uploader = original.player1.user
    copy = services.import_mat(
        text,
        by=uploader,
        player1=original.player1,
        player2=original.player2,
        discipline=original.discipline,
    )
    assert copy.pk != original.pk and copy.recorded and copy.length == 5
    assert stored_games(copy) == stored_games(original)
    assert stored_turns(copy) == stored_turns(original)
    # Plays written by format_play are stored alike.
    assert [t.moves for t in live_turns(copy)] == [t.moves for t in live_turns(original)]
    # Finished like a recorded match: the record's result awaits both players.
    assert copy.state == MatchState.FINISHED
    original_report = original.reports.get()
    report = copy.reports.get()
    assert report.source == ReportSource.RECORD and report.status == "pending"
    assert (report.score1, report.score2) == (original_report.score1, original_report.score2)
    # And the copy exports to the same games again.
    assert replay_mat(exports.mat_text(copy))["games"] == replay_mat(text)["games"]


def resigned_match() -> Match:
    """Game 1 ends by a mars resignation, game 2 by a dropped double, in a 5-point match."""
    match = MatchFactory(length=5)
    white, black = user_of(match, 0), user_of(match, 1)
    turns = [
        (white, TurnKind.OPENING, [3, 1], ""),
        (white, TurnKind.PLAY, [3, 1], "8/5 6/5"),
        (black, TurnKind.PLAY, [6, 4], "24/18 13/9"),
        (white, TurnKind.RESIGN, [], ""),
        (black, TurnKind.ACCEPT, [], ""),
    ]
    for number, (by, kind, dice, moves) in enumerate(turns, start=1):
        level = "mars" if kind == TurnKind.RESIGN else ""
        services.record_turn(
            match, by=by, number=number, kind=kind, dice=dice, moves=moves, level=level
        )
    second = [
        (black, TurnKind.OPENING, [2, 5], ""),
        (black, TurnKind.PLAY, [5, 2], "13/8 13/11"),
        (white, TurnKind.DOUBLE, [], ""),
        (black, TurnKind.PASS, [], ""),
    ]
    for number, (by, kind, dice, moves) in enumerate(second, start=1):
        services.record_turn(match, by=by, number=number, kind=kind, dice=dice, moves=moves)
    return match


def test_resignations_and_dropped_doubles_survive_the_round_trip() -> None:
    match = resigned_match()
    games = list(match.games.order_by("number"))
    assert [(g.winner, g.points, g.end) for g in games] == [(2, 2, "resign"), (1, 1, "pass")]
    text = exports.mat_text(match)
    assert "Wins 2 points" in text and "Drops" in text
    replayed = replay_mat(text)
    assert [(g["winner"], g["points"]) for g in replayed["games"]] == [(2, 2), (1, 1)]
    copy = services.import_mat(
        text,
        by=match.player1.user,
        player1=match.player1,
        player2=match.player2,
        discipline=match.discipline,
    )
    assert stored_turns(copy) == stored_turns(match)
    assert copy.state == MatchState.PLAYING  # 1-2 in a match to 5: not over


def test_the_sgf_export_reads_back_to_the_same_games() -> None:
    match = MatchFactory(length=3)
    play_out(match, seed=7)
    parsed = parse_sgf(exports.sgf_text(match))
    assert [(g.result.winner + 1, g.result.points) for g in parsed.games] == [
        (g.winner, g.points) for g in match.games.order_by("number")
    ]


def test_undone_turns_are_left_out_of_the_export() -> None:
    match = MatchFactory(length=1)
    white, black = user_of(match, 0), user_of(match, 1)
    services.record_turn(match, by=white, number=1, kind=TurnKind.OPENING, dice=[3, 1])
    services.record_turn(
        match, by=white, number=2, kind=TurnKind.PLAY, dice=[3, 1], moves="24/21 6/5"
    )
    services.agree_undo(services.request_undo(match, by=white), by=black)
    services.record_turn(
        match, by=white, number=2, kind=TurnKind.PLAY, dice=[3, 1], moves="8/5 6/5"
    )
    services.record_turn(match, by=black, number=3, kind=TurnKind.RESIGN, level="single")
    services.record_turn(match, by=white, number=4, kind=TurnKind.ACCEPT)
    text = exports.mat_text(match)
    assert "8/5 6/5" in text and "24/21" not in text
    assert replay_mat(text)["final_score"] == [1, 0]


def test_other_disciplines_have_no_match_file() -> None:
    long_nardy = DisciplineFactory(
        code="long-standard", name="Long nardy", variant="long", scoring_preset="long-masters"
    )
    match = MatchFactory(discipline=long_nardy, recorded=True)
    assert not exports.mat_supported(match)
    assert exports.mat_supported(MatchFactory())


# --- Importing


BAD_PLAY = """\
 1 point match

 Game 1
 Alice : 0                      Bob : 0
  1) 31: 8/5 6/5                 61: 13/7 8/7
  2) 42: 8/4 6/4                 52: 13/11 13/8
  3) 66: 24/18(2) 13/7(3)
"""


def test_an_illegal_play_in_the_file_is_refused_with_its_line_and_nothing_is_saved() -> None:
    player = PlayerFactory(user=UserFactory())
    opponent = PlayerFactory(federation=player.federation)
    before = (Match.objects.count(), Game.objects.count(), Turn.objects.count())
    with pytest.raises(ValidationError) as refused:
        services.import_mat(
            BAD_PLAY,
            by=player.user,
            player1=player,
            player2=opponent,
            discipline=DisciplineFactory(),
        )
    assert "line 7" in " ".join(refused.value.messages)
    assert (Match.objects.count(), Game.objects.count(), Turn.objects.count()) == before


def test_only_someone_who_may_arrange_the_match_imports_it() -> None:
    match = MatchFactory(length=1)
    play_out(match, seed=3)
    text = exports.mat_text(match)
    count = Match.objects.count()
    with pytest.raises(PermissionDenied):
        services.import_mat(
            text,
            by=UserFactory(),
            player1=match.player1,
            player2=match.player2,
            discipline=match.discipline,
        )
    assert Match.objects.count() == count


def test_the_discipline_must_be_the_files_game() -> None:
    match = MatchFactory(length=1)
    play_out(match, seed=3)
    long_nardy = DisciplineFactory(
        code="long-standard", name="Long nardy", variant="long", scoring_preset="long-masters"
    )
    with pytest.raises(ValidationError, match="another game"):
        services.import_mat(
            exports.mat_text(match),
            by=match.player1.user,
            player1=match.player1,
            player2=match.player2,
            discipline=long_nardy,
        )


# --- Pages: download and upload


def test_the_match_page_offers_the_downloads_which_are_attachments(client) -> None:
    match = MatchFactory(length=1)
    play_out(match, seed=3)
    page = client.get(reverse("games:match", args=[match.pk]))
    assert reverse("games:match_mat", args=[match.pk]).encode() in page.content
    mat = client.get(reverse("games:match_mat", args=[match.pk]))
    assert mat.status_code == 200
    assert mat["Content-Disposition"] == f'attachment; filename="match-{match.pk}.mat"'
    assert replay_mat(mat.content.decode())["final_score"] == [
        match.reports.get().score1,
        match.reports.get().score2,
    ]
    sgf = client.get(reverse("games:match_sgf", args=[match.pk]))
    assert sgf.status_code == 200 and sgf.content.startswith(b"(;FF[4]GM[6]")


def test_a_match_without_turns_has_no_download(client) -> None:
    match = MatchFactory(recorded=False)
    assert client.get(reverse("games:match_mat", args=[match.pk])).status_code == 404


def test_uploading_a_mat_file_creates_the_recorded_match(client) -> None:
    source = MatchFactory(length=3)
    play_out(source, seed=7)
    text = exports.mat_text(source)
    user = UserFactory()
    grant(user, Role.FEDERATION_ADMIN, source.federation)
    client.force_login(user)
    upload = SimpleUploadedFile("m.mat", text.encode(), content_type="text/plain")
    response = client.post(
        reverse("games:match_import"),
        {
            "player1": source.player1.pk,
            "player2": source.player2.pk,
            "discipline": source.discipline.pk,
            "file": upload,
        },
    )
    created = Match.objects.exclude(pk=source.pk).get()
    assert response.status_code == 302
    assert response["Location"] == reverse("games:match", args=[created.pk])
    assert stored_turns(created) == stored_turns(source)


def test_a_broken_upload_is_shown_on_the_form(client) -> None:
    player = PlayerFactory(user=UserFactory())
    opponent = PlayerFactory(federation=player.federation)
    client.force_login(player.user)
    upload = SimpleUploadedFile("m.mat", BAD_PLAY.encode(), content_type="text/plain")
    response = client.post(
        reverse("games:match_import"),
        {
            "player1": player.pk,
            "player2": opponent.pk,
            "discipline": DisciplineFactory().pk,
            "file": upload,
        },
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert response.status_code == 200
    assert "line 7" in response.content.decode()
    assert not Match.objects.exists()
