"""Driving a recorded match through the services with random legal plays."""

from __future__ import annotations

import datetime
import json
import random
from typing import Any

from django.utils import timezone

from engine.records.notation import format_play
from engine.rules import game as eg
from games import adapters, services
from games.models import Match, Turn, TurnKind
from games.services import recording


def current_state(match: Match) -> tuple[int, eg.GameState]:
    game = recording._open_game(match)
    turns = list(game.turns.filter(undone_at__isnull=True).order_by("number"))
    return len(turns) + 1, adapters.replay(match, game, turns)


def user_of(match: Match, side: int):  # type: ignore[no-untyped-def]
    return (match.player1 if side == 0 else match.player2).user


def recorded_ago(match: Match, seconds: float) -> None:
    """Move the match's last turn back in time (instead of waiting): the server
    charges the clocks from the turns' time stamps."""
    last = Turn.objects.filter(game__match=match).order_by("-game__number", "-number").first()
    assert last is not None
    Turn.objects.filter(pk=last.pk).update(
        recorded_at=timezone.now() - datetime.timedelta(seconds=seconds)
    )


def play_out(match: Match, seed: int = 1, max_turns: int = 2000) -> int:
    """Play the match to its end with random dice, plays and cube decisions; return turns."""
    rng = random.Random(seed)
    for count in range(max_turns):
        match.refresh_from_db()
        if match.state == "finished":
            return count
        number, state = current_state(match)
        if state.phase is eg.Phase.OPENING:
            white, black = rng.sample(range(1, 7), 2)
            services.record_turn(
                match,
                by=user_of(match, 0),
                number=number,
                kind=TurnKind.OPENING,
                dice=[white, black],
            )
            continue
        actor = state.to_act
        by = user_of(match, actor)
        if state.phase is eg.Phase.TAKE:
            kind = TurnKind.TAKE if rng.random() < 0.7 else TurnKind.PASS
            services.record_turn(match, by=by, number=number, kind=kind)
            continue
        if state.phase is eg.Phase.ROLL and eg.can_double(state) and rng.random() < 0.03:
            services.record_turn(match, by=by, number=number, kind=TurnKind.DOUBLE)
            continue
        if state.phase is eg.Phase.ROLL:
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            rolled = eg.roll(
                state,
                __import__("engine.rules.dice", fromlist=["RecordedDice"]).RecordedDice([dice]),
            )
        else:
            dice, rolled = state.dice, state
        play = rng.choice(eg.legal_plays(rolled))
        services.record_turn(
            match,
            by=by,
            number=number,
            kind=TurnKind.PLAY,
            dice=list(dice),
            moves=format_play(play),
        )
    raise AssertionError("the match did not end")


def post_json(client, url: str, body: Any, **extra: Any):  # type: ignore[no-untyped-def]
    """POST ``body`` as JSON to the API, asking for JSON answers in English."""
    return client.post(
        url,
        json.dumps(body),
        content_type="application/json",
        HTTP_ACCEPT="application/json",
        HTTP_ACCEPT_LANGUAGE="en",
        **extra,
    )
