"""Match file uploads (issue 12, point 6): a file the engine refuses is a form
or API error (never a 500), and a file over ``MATCH_FILE_MAX_BYTES`` is
refused by its size before anything reads it.

The file with a number of more than 4,300 digits raised a bare ValueError in
the engine (Python's int() limit), which the upload paths, catching only
EngineError, turned into a 500.
"""

from __future__ import annotations

import json

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from games.forms import read_match_file
from games.models import Match
from tests.conftest import run_python
from tests.factories import DisciplineFactory, MatchFactory, PlayerFactory, UserFactory
from tests.games.helpers import user_of

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
BIG = "1" + "0" * 5000  # past int()'s 4,300-digit limit
HUGE_LENGTH_MAT = f"""\
 {BIG} point match

 Game 1
 A : 0                           B : 0
  1) 31: 8/5 6/5                 42: 8/4 6/4
  2)  Doubles => 2                Drops
      Wins 1 point
"""
HUGE_SCORE_MAT = HUGE_LENGTH_MAT.replace(BIG, "3").replace("B : 0", f"B : {BIG}")


class UnreadableUpload(SimpleUploadedFile):
    """An upload that fails the test if anything reads its content."""

    def read(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("the file was read")

    def chunks(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("the file was read")


def import_form(client, upload):  # type: ignore[no-untyped-def]
    player = PlayerFactory(user=UserFactory())
    opponent = PlayerFactory(federation=player.federation)
    client.force_login(player.user)
    return client.post(
        reverse("games:match_import"),
        {
            "player1": player.pk,
            "player2": opponent.pk,
            "discipline": DisciplineFactory().pk,
            "file": upload,
        },
        **EN,
    )


@pytest.mark.parametrize(
    ("text", "line"), [(HUGE_LENGTH_MAT, 1), (HUGE_SCORE_MAT, 4)], ids=["length", "score"]
)
def test_an_imported_file_with_a_huge_number_is_a_form_error(client, text: str, line: int) -> None:  # type: ignore[no-untyped-def]
    response = import_form(client, SimpleUploadedFile("m.mat", text.encode()))
    assert response.status_code == 200
    (error,) = response.context["form"].errors["file"]
    assert f"line {line}" in error
    assert not Match.objects.exists()


def test_a_reported_file_with_a_huge_number_is_a_form_error(client) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory(recorded=False, length=3)
    client.force_login(user_of(match, 0))
    upload = SimpleUploadedFile("m.mat", HUGE_SCORE_MAT.encode())
    response = client.post(
        reverse("games:match_report", args=[match.pk]), {"mat_file": upload, "current": ""}, **EN
    )
    assert response.status_code == 400
    assert response.context["report_form"].errors["mat_file"]
    assert not match.reports.exists()


def test_a_reported_file_with_a_huge_number_is_a_400_in_the_api(client) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory(recorded=False, length=3)
    client.force_login(user_of(match, 0))
    response = client.post(
        "/api/reports/",
        json.dumps({"match": match.pk, "score1": 3, "score2": 0, "mat_text": HUGE_SCORE_MAT}),
        content_type="application/json",
        **EN,
    )
    assert response.status_code == 400, response.content
    assert "not valid" in json.dumps(response.json())
    assert not match.reports.exists()


def test_an_upload_over_the_limit_is_refused_unread(client, settings) -> None:  # type: ignore[no-untyped-def]
    settings.MATCH_FILE_MAX_BYTES = 1000
    response = import_form(client, SimpleUploadedFile("m.mat", b"x" * 1001))
    assert response.status_code == 200
    (error,) = response.context["form"].errors["file"]
    assert "too large" in error and "1001" in error and "1000" in error
    assert not Match.objects.exists()


def test_the_size_is_checked_before_the_file_is_read(settings) -> None:  # type: ignore[no-untyped-def]
    settings.MATCH_FILE_MAX_BYTES = 1000
    with pytest.raises(ValidationError) as caught:
        read_match_file(UnreadableUpload("m.mat", b"x" * 1001))
    assert caught.value.code == "file_too_large"
    # A size that does not tell the truth: no more than the limit is read.
    liar = SimpleUploadedFile("m.mat", b"x" * 5000)
    liar.size = 10
    with pytest.raises(ValidationError) as caught:
        read_match_file(liar)
    assert caught.value.code == "file_too_large"


def test_an_upload_at_the_limit_is_read(client, settings) -> None:  # type: ignore[no-untyped-def]
    text = HUGE_SCORE_MAT.replace(BIG, "0")
    settings.MATCH_FILE_MAX_BYTES = len(text.encode())
    response = import_form(client, SimpleUploadedFile("m.mat", text.encode()))
    assert response.status_code == 302  # read, checked by the engine and imported
    assert Match.objects.get().length == 3


def test_a_reported_file_over_the_limit_is_refused_unread(client, settings) -> None:  # type: ignore[no-untyped-def]
    settings.MATCH_FILE_MAX_BYTES = 1000
    match = MatchFactory(recorded=False, length=3)
    client.force_login(user_of(match, 0))
    upload = SimpleUploadedFile("m.mat", b"x" * 1001)
    response = client.post(
        reverse("games:match_report", args=[match.pk]), {"mat_file": upload, "current": ""}, **EN
    )
    assert response.status_code == 400
    (error,) = response.context["report_form"].errors["mat_file"]
    assert "too large" in error
    assert not match.reports.exists()


def test_api_mat_text_over_the_limit_is_refused_before_the_engine(
    client, settings, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    import engine.records.matfile

    def engine_must_not_run(text: str) -> None:
        raise AssertionError("the engine read an oversized file")

    monkeypatch.setattr(engine.records.matfile, "replay_mat", engine_must_not_run)
    settings.MATCH_FILE_MAX_BYTES = 1000
    match = MatchFactory(recorded=False, length=3)
    client.force_login(user_of(match, 0))
    response = client.post(
        "/api/reports/",
        json.dumps({"match": match.pk, "score1": 3, "score2": 0, "mat_text": "й" * 501}),
        content_type="application/json",
        **EN,
    )
    assert response.status_code == 400, response.content
    assert "too large" in response.json()["mat_text"][0]  # 1,002 bytes in UTF-8
    assert not match.reports.exists()


def test_the_limit_comes_from_the_environment(clean_env) -> None:  # type: ignore[no-untyped-def]
    code = (
        "import django; django.setup(); from django.conf import settings as s; "
        "print(s.MATCH_FILE_MAX_BYTES)"
    )
    assert run_python(code, clean_env).stdout.strip() == str(1024 * 1024)
    configured = run_python(code, dict(clean_env, MATCH_FILE_MAX_BYTES="4096"))
    assert configured.stdout.strip() == "4096", configured.stderr
