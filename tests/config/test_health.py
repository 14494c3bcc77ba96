from __future__ import annotations

import pytest
from django.test import override_settings

pytestmark = pytest.mark.django_db


def test_healthz_is_200_when_database_and_broker_answer(client) -> None:
    response = client.get("/healthz")
    body = response.json()
    assert response.status_code == 200, body
    assert body["status"] == "ok"
    assert body["checks"]["database"]["ok"] is True
    assert body["checks"]["broker"]["ok"] is True


@override_settings(CELERY_BROKER_URL="redis://127.0.0.1:9/0", CELERY_BROKER_TRANSPORT_OPTIONS={})
def test_healthz_is_503_when_the_broker_is_unreachable(client) -> None:
    response = client.get("/healthz")
    body = response.json()
    assert response.status_code == 503
    assert body["status"] == "unavailable"
    assert body["checks"]["database"]["ok"] is True
    assert body["checks"]["broker"]["ok"] is False
    assert body["checks"]["broker"]["error"]


def test_healthz_is_503_when_the_filesystem_queue_is_missing(client, tmp_path) -> None:
    missing = tmp_path / "no-such-queue"
    options = {"data_folder_in": str(missing), "data_folder_out": str(missing)}
    with override_settings(
        CELERY_BROKER_URL="filesystem://", CELERY_BROKER_TRANSPORT_OPTIONS=options
    ):
        response = client.get("/healthz")
    assert response.status_code == 503
    assert "no-such-queue" in response.json()["checks"]["broker"]["error"]


def test_healthz_refuses_writes(client) -> None:
    assert client.post("/healthz").status_code == 405
