"""eXtreme Gammon ``.xg`` match files: read through bgsage, every play checked by
the engine, stored as a recorded match; GNU Backgammon reads its ``.mat`` export
with the same plays.  The .xg files are made here (tests/games/xg_writer.py)."""

from __future__ import annotations

import datetime as dt
import random
import struct
from pathlib import Path
from typing import Any, cast

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from clubs.models import Role
from engine.records.matfile import export_mat, parse_mat
from engine.records.record import DOUBLE, DROP, PLAY, TAKE, MatchRecord
from engine.rules.variants import HYPERGAMMON, NACKGAMMON, Variant
from games import exports, services
from games.models import Game, Match, Turn
from games.xgfile import MAX_BYTES, XgFileError, is_xg, read_xg
from tests.engine.test_matfile import Dialect, random_match, write_mat
from tests.factories import DisciplineFactory, MatchFactory, PlayerFactory, UserFactory, grant
from tests.games.helpers import play_out
from tests.games.test_exports import live_turns, stored_games, stored_turns
from tests.games.xg_writer import bomb, write_xg, xg_archive, xg_records
from tests.imports import ROOT, imported_roots

try:
    import gnubg
except ImportError:  # pragma: no cover - the GPL oracle is a test extra
    gnubg = None


def checked(seed: int, length: int = 5, resign_rate: float = 0.01) -> MatchRecord:
    """A random legal match with doubles, takes, drops, bear-offs and (at
    ``resign_rate`` a turn) resignations, as the engine checks it from a .mat
    text written for the test."""
    generated = random_match(seed, length=length, resign_rate=resign_rate)
    return parse_mat(write_mat(generated, Dialect("gnubg")))


def game_keys(match: MatchRecord) -> list[tuple[object, ...]]:
    """Per game what an .xg keeps: the score, Crawford, every play, double and
    answer (side, kind, dice, position after, cube), and the result."""
    return [
        (
            game.number,
            game.score_before,
            game.crawford,
            tuple(
                (a.side, a.kind, a.dice, a.play.position if a.play else None, a.value)
                for a in game.actions
                if a.kind in (PLAY, DOUBLE, TAKE, DROP)
            ),
            game.result,
        )
        for game in match.games
    ]


def refusal(data: bytes) -> XgFileError:
    with pytest.raises(XgFileError) as refused:
        read_xg(data)
    return refused.value


def test_bgsage_is_imported_by_the_one_adapter_only() -> None:
    """bgsage (MPL-2.0) stays behind its two adapters, games/xgfile.py (reading
    .xg files) and analysis/analysers/bgsage_analyser.py (the match analysis):
    no other product module, and never the engine, imports it."""
    importers = sorted(
        str(path.relative_to(ROOT))
        for package in ROOT.glob("*/__init__.py")
        if package.parent.name != "tests"
        for path in package.parent.rglob("*.py")
        if "bgsage" in imported_roots(path) or "bgbot_cpp" in imported_roots(path)
    )
    assert importers == ["analysis/analysers/bgsage_analyser.py", "games/xgfile.py"]


# --- Reading ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seed", "resign_rate"), [(1, 0.01), (4, 0.01), (23, 0.01), (1, 0), (4, 0)]
)
def test_an_xg_file_reads_as_the_match_it_holds(seed: int, resign_rate: float) -> None:
    original = checked(seed, resign_rate=resign_rate)
    data = write_xg(original)
    assert is_xg(data)
    imported = read_xg(data)
    assert imported.players == original.players == ("Anna Smith", "bob_1,1500")
    assert imported.length == 5 and imported.settings.crawford_rule
    assert game_keys(imported) == game_keys(original)
    assert imported.final_score == original.final_score


def test_a_money_session_and_cyrillic_names() -> None:
    original = parse_mat(
        write_mat(
            random_match(3, length=0, max_games=3, players=("Анна", "Борис")), Dialect("gnubg")
        )
    )
    imported = read_xg(write_xg(original))
    assert imported.length == 0 and imported.players == ("Анна", "Борис")
    assert game_keys(imported) == game_keys(original)


@pytest.mark.parametrize("variant", [NACKGAMMON, HYPERGAMMON], ids=lambda v: v.name)
def test_nackgammon_and_hypergammon_matches(variant: Variant) -> None:
    generated = random_match(7, length=3, variant=variant, resign_rate=0)
    original = parse_mat(write_mat(generated, Dialect("gnubg")))
    imported = read_xg(write_xg(original))
    assert imported.settings.variant == variant
    assert game_keys(imported) == game_keys(original)


@pytest.mark.parametrize(
    ("offset", "value"),
    [(96, 3), (96, 7)],  # XG's longgammon, and a variation XG does not have
)
def test_a_variation_this_program_does_not_play_is_refused(offset: int, value: int) -> None:
    records = xg_records(checked(1))
    struct.pack_into("<i", records[0], offset, value)
    assert refusal(xg_archive(b"".join(records))).code == "xg_unsupported"


def test_a_settled_game_and_a_set_up_start_are_refused() -> None:
    records = xg_records(checked(1, resign_rate=0))
    footer = next(r for r in records if r[8] == 4)
    struct.pack_into("<i", footer, 32, 1001)  # settled for a single game's value
    assert refusal(xg_archive(b"".join(records))).code == "xg_unsupported"
    records = xg_records(checked(1, resign_rate=0))
    struct.pack_into("<b", records[1], 21 + 6, 4)  # game 1 starts with a checker moved
    assert "set-up position" in " ".join(refusal(xg_archive(b"".join(records))).messages)


def first_play(records: list[bytearray]) -> tuple[int, bytearray]:
    """The index and record of the third checker play of game 1."""
    moves = [(i, r) for i, r in enumerate(records) if r[8] == 3]
    return moves[2]


def test_an_illegal_play_is_refused_at_its_game_and_turn() -> None:
    records = xg_records(checked(4))
    _index, record = first_play(records)
    # The play's first step now starts from a point the mover has no checker on
    # (point 1 of its own numbering is empty for a mover that has not borne in).
    struct.pack_into("<2i", record, 68, 0, -1)
    refused = refusal(xg_archive(b"".join(records)))
    message = " ".join(refused.messages)
    assert "game 1, turn 3" in message
    assert refused.code not in ("not_xg", "xg_too_large", "xg_unsupported")


def test_dice_that_do_not_match_the_play_are_refused() -> None:
    records = xg_records(checked(9))
    _index, record = first_play(records)
    first, second = struct.unpack_from("<2i", record, 100)
    struct.pack_into("<2i", record, 100, 7 - first if first != 3 else 1, second)
    message = " ".join(refusal(xg_archive(b"".join(records))).messages)
    assert "game 1, turn 3" in message


def flip_winner(records: list[bytearray], game: int) -> None:
    footer = [r for r in records if r[8] == 4][game - 1]
    assert struct.unpack_from("<i", footer, 32)[0] in (1, 2, 3)  # borne off: one winner
    struct.pack_into("<i", footer, 24, -struct.unpack_from("<i", footer, 24)[0])
    first, second = struct.unpack_from("<2i", footer, 12)  # the score after it, as XG writes
    struct.pack_into("<2i", footer, 12, second, first)


def test_a_wrong_game_winner_is_a_warning_and_the_engines_result_is_kept() -> None:
    original = checked(1, resign_rate=0)
    records = xg_records(original)
    flip_winner(records, 3)  # game 3 of 4, borne off: the match goes on
    imported = read_xg(xg_archive(b"".join(records)))
    assert game_keys(imported) == game_keys(original)
    assert [w.code for w in imported.warnings] == ["wrong_winner"]


def test_a_wrong_match_winner_is_refused() -> None:
    records = xg_records(checked(4, resign_rate=0))  # one game, borne off, wins the match
    flip_winner(records, 1)
    refused = refusal(xg_archive(b"".join(records)))
    assert refused.code == "wrong_winner"
    assert "game 1" in " ".join(refused.messages)


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"1 point match\n",
        b"RGMH" + bytes(100),
        b"RGMH" + bytes(9000),
        b"\x00" * 20000,
    ],
    ids=["empty", "mat", "short", "zeros", "no-magic"],
)
def test_garbage_is_refused_as_not_an_xg_file(data: bytes) -> None:
    assert refusal(data).code == "not_xg"


def test_a_truncated_or_damaged_file_is_refused() -> None:
    data = write_xg(checked(1))
    assert refusal(data[: len(data) // 2]).code == "not_xg"
    flipped = bytearray(data)
    flipped[9000] ^= 0xFF  # inside the deflated records: the archive's checksum fails
    assert refusal(bytes(flipped)).code == "not_xg"


def test_records_cut_short_or_out_of_order_are_refused() -> None:
    records = xg_records(checked(1))
    assert refusal(xg_archive(b"".join(records)[:-100])).code == "not_xg"
    assert refusal(xg_archive(b"".join(records[1:]))).code == "not_xg"  # no match header


def test_spoiled_records_are_refused_with_a_reason_never_an_exception() -> None:
    """Bytes changed at random in the fields the reader reads (record kinds, sides,
    moves, dice, scores, results, the header): each file reads, or is refused
    with an XgFileError, never anything else."""
    fields = [8, 12, 16, 20, 24, 28, 32, 64, 68, 72, 76, 80, 92, 96, 100, 104, 552, 556]
    base = xg_records(checked(4))
    rng = random.Random(16)
    codes = set()
    for _ in range(150):
        records = [bytearray(r) for r in base]
        for _ in range(rng.randint(1, 4)):
            at = rng.choice(fields) + rng.randrange(4)
            records[rng.randrange(len(records))][at] = rng.randrange(256)
        if rng.random() < 0.2:
            del records[rng.randrange(len(records))]
        try:
            read_xg(xg_archive(b"".join(records)))
        except XgFileError as error:
            codes.add(error.code)
    assert {"not_xg", "xg_unsupported", "out_of_turn"} <= codes


def test_a_zip_bomb_and_a_huge_file_are_refused_without_inflating_them() -> None:
    assert refusal(bomb()).code == "xg_too_large"
    assert refusal(b"RGMH" + bytes(MAX_BYTES)).code == "xg_too_large"


# --- Storing ------------------------------------------------------------------------------


@pytest.mark.django_db
def test_importing_an_xg_file_records_the_same_turns_as_its_mat_twin() -> None:
    original = MatchFactory(length=5)
    play_out(original, seed=5)
    original.refresh_from_db()
    record = parse_mat(exports.mat_text(original))
    copy = services.import_xg(
        write_xg(record),
        by=original.player1.user,
        player1=original.player1,
        player2=original.player2,
        discipline=original.discipline,
    )
    assert copy.pk != original.pk and copy.recorded and copy.length == 5
    assert stored_games(copy) == stored_games(original)
    assert stored_turns(copy) == stored_turns(original)
    assert [t.moves for t in live_turns(copy)] == [t.moves for t in live_turns(original)]
    assert copy.state == original.state


@pytest.mark.django_db
def test_a_wrong_game_winner_is_kept_as_a_warning_of_the_import() -> None:
    player = PlayerFactory(user=UserFactory())
    opponent = PlayerFactory(federation=player.federation)
    original = checked(1, resign_rate=0)
    records = xg_records(original)
    flip_winner(records, 3)
    match = services.import_xg(
        xg_archive(b"".join(records)),
        by=player.user,
        player1=player,
        player2=opponent,
        discipline=DisciplineFactory(),
    )
    assert [w["code"] for w in match.import_warnings] == ["wrong_winner"]
    game = match.games.get(number=3)
    assert (game.winner, game.points) == (1, 2)  # the engine's result, not the file's
    assert (match.games.count(), match.state) == (4, "finished")


@pytest.mark.django_db
def test_a_refused_xg_file_saves_nothing() -> None:
    player = PlayerFactory(user=UserFactory())
    opponent = PlayerFactory(federation=player.federation)
    records = xg_records(checked(4))
    struct.pack_into("<2i", first_play(records)[1], 68, 0, -1)
    before = (Match.objects.count(), Game.objects.count(), Turn.objects.count())
    for data in (xg_archive(b"".join(records)), b"not an xg file"):
        with pytest.raises(ValidationError):
            services.import_xg(
                data,
                by=player.user,
                player1=player,
                player2=opponent,
                discipline=DisciplineFactory(),
            )
    assert (Match.objects.count(), Game.objects.count(), Turn.objects.count()) == before


def dated(record: MatchRecord, days: float) -> bytes:
    """The .xg file of ``record`` with its header's Date (a Delphi TDateTime) set."""
    records = xg_records(record)
    struct.pack_into("<d", records[0], 128, days)
    return xg_archive(b"".join(records))


# 2025-03-14 19:30 as XG writes it: days since 1899-12-30, the time as the fraction.
FRIDAY_EVENING = 45730 + (19 * 60 + 30) / 1440


def test_an_xg_file_s_date_is_read_as_the_match_s_event_date() -> None:
    imported = read_xg(dated(checked(2), FRIDAY_EVENING))
    assert dict(imported.settings.headers) == {"EventDate": "2025.03.14", "EventTime": "19.30"}
    # Kept for writing: the .mat export names the day (GNU Backgammon's header).
    assert "EventDate" in export_mat(imported)


@pytest.mark.parametrize("days", [0.0, -3.0, float("nan"), float("inf"), 1e12])
def test_an_unset_or_impossible_xg_date_leaves_the_match_undated(days: float) -> None:
    original = checked(2)
    imported = read_xg(dated(original, days))
    assert imported.settings.headers == ()
    assert game_keys(imported) == game_keys(original)  # the plays are read all the same


@pytest.mark.django_db
def test_an_imported_xg_match_is_dated_by_its_file() -> None:
    player = PlayerFactory(user=UserFactory())
    opponent = PlayerFactory(federation=player.federation)
    match = services.import_xg(
        dated(checked(2, resign_rate=0), FRIDAY_EVENING),
        by=player.user,
        player1=player,
        player2=opponent,
        discipline=DisciplineFactory(),
    )
    local = timezone.localtime(match.started_at)
    assert (local.date(), local.hour, local.minute) == (dt.date(2025, 3, 14), 19, 30)
    assert match.finished_at == match.started_at


def post_import(client: Any, source: Match, name: str, data: bytes) -> Any:
    user = UserFactory()
    grant(user, Role.FEDERATION_ADMIN, source.federation)
    client.force_login(user)
    return client.post(
        reverse("games:match_import"),
        {
            "player1": source.player1.pk,
            "player2": source.player2.pk,
            "discipline": source.discipline.pk,
            "file": SimpleUploadedFile(name, data, content_type="application/octet-stream"),
        },
        HTTP_ACCEPT_LANGUAGE="en",
    )


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["match.xg", "match.bin"])  # by its name or its first bytes
def test_uploading_an_xg_file_creates_the_recorded_match(client: Any, name: str) -> None:
    source = MatchFactory(length=3)
    play_out(source, seed=7)
    data = write_xg(parse_mat(exports.mat_text(source)))
    response = post_import(client, source, name, data)
    created = Match.objects.exclude(pk=source.pk).get()
    assert response.status_code == 302
    assert response["Location"] == reverse("games:match", args=[created.pk])
    assert stored_turns(created) == stored_turns(source)


@pytest.mark.django_db
def test_a_broken_xg_upload_is_shown_on_the_form(client: Any) -> None:
    source = MatchFactory(length=3)
    response = post_import(client, source, "match.xg", b"RGMH" + bytes(5000))
    assert response.status_code == 200
    assert "not an eXtreme Gammon match file" in response.content.decode()
    assert Match.objects.count() == 1


# --- GNU Backgammon reads the export with the same plays ----------------------------------


@pytest.mark.skipif(gnubg is None, reason="the gnubg package (a GPL test oracle) is not installed")
@pytest.mark.parametrize(("seed", "resign_rate"), [(1, 0), (2, 0), (4, 0), (4, 0.01), (23, 0.01)])
def test_gnu_backgammon_reads_the_mat_export_of_an_imported_xg_match(
    seed: int, resign_rate: float, tmp_path: Path
) -> None:
    from tests.engine.test_corpus import gnubg_import, gnubg_summary, summary

    original = checked(seed, resign_rate=resign_rate)
    imported = read_xg(write_xg(original))
    exported = tmp_path / "from-xg.mat"
    exported.write_text(export_mat(imported), encoding="utf-8")
    read_by_gnubg = gnubg_summary(gnubg_import(exported))
    assert read_by_gnubg == summary(imported) == summary(original)
    compared = [action for game in read_by_gnubg for action in cast(list[object], game[-1])]
    assert len(compared) > 20  # plays were compared
