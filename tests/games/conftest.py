"""Fixtures shared by the games tests."""

from __future__ import annotations

import pytest

from games.events import result_confirmed


@pytest.fixture
def heard():  # type: ignore[no-untyped-def]
    """The match ids announced as confirmed during the test (each result once)."""
    seen: list[int] = []
    receiver = result_confirmed.subscribe(lambda match_id: seen.append(match_id))
    yield seen
    result_confirmed.unsubscribe(receiver)
