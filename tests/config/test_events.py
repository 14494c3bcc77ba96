from __future__ import annotations

import pytest

from base.events import Event


def test_subscribers_receive_the_payload_in_order() -> None:
    event = Event("games.result_confirmed", fields=("match_id",))
    seen: list[tuple[str, int]] = []
    event.subscribe(lambda match_id: seen.append(("first", match_id)))
    event.subscribe(lambda match_id: seen.append(("second", match_id)))
    event.send(match_id=7)
    assert seen == [("first", 7), ("second", 7)]


def test_payload_must_match_the_declared_fields() -> None:
    event = Event("games.result_confirmed", fields=("match_id",))
    with pytest.raises(TypeError, match=r"missing \['match_id'\], unexpected \['game'\]"):
        event.send(game=1)
