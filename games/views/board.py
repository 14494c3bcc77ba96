"""The board: players record turns at it, anyone allowed follows it live or replays a game.

Pages: ``board`` (the live board of a match) and ``replay`` (one game, turn by
turn).  JSON endpoints used by games/static/games/board.js: ``state`` (what the
board shows now; polled to follow a live game), ``plays`` (the legal plays of
entered dice, for moving by clicking checkers), ``record`` (POST one turn) and
``undo`` (POST a request, an agreement or an arbiter's undo) and ``scorer``
(POST: switch scorer mode on or off).

Each player enters only the actions of their own side, unless scorer mode is
on (games.permissions ``match.act_for_side``): the state says whether the
viewer may act now, the page shows the controls only then, and the services
refuse anything else with 403.  Turns entered by someone other than the
side's player say who recorded them.

The state carries the clocks of a clocked match (games.services.clocks_now,
from the server's own time stamps): the page counts the running one down
itself between polls and shows a fallen flag, but only
games.services.record_timeout decides a loss on time.  The page never sends a
clock reading; turns whose readings an arbiter entered off a physical clock
say so, and who entered them.

Reading replays the stored turns through the engine, and everything the
board reads of a game (what it waits for, the legal plays of entered dice,
the resignation levels) it asks games.adapters: no view imports the engine.
Every change goes through games.services, whose errors come back as JSON:
RecordingError → 400 ``{"error": {"code", "reason", "turn"}}`` (the engine's
code and reason), TurnConflict → 409 with the expected turn number,
PermissionDenied → 403, base.locking.Busy (the match stayed locked too long)
→ 503, any other ValidationError → 400.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Count, Max
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from base import locking
from base.engine_messages import CLASS_NAMES, result_label
from clubs import permissions
from games import adapters, boardsvg, match_extras, queries, services, visibility
from games import permissions as side_rules
from games.models import (
    ClockMode,
    ClockSource,
    Game,
    Match,
    MatchState,
    Turn,
    TurnKind,
    UndoRequest,
)

POLL_SECONDS = 2.5
# The column bound of Turn.clock1_ms and clock2_ms (PositiveIntegerField).
MAX_CLOCK_MS = 2_147_483_647


# --- Reading a match


def _get_match(request: HttpRequest, pk: int) -> Match:
    """The match if ``request.user`` may read it (the same rule as the match page), and
    its result too: the board shows the score and the game (games.visibility)."""
    try:
        matches = queries.with_players(queries.visible_matches(request.user))
        match = visibility.hide_results(matches, request.user).get(pk=pk)
    except Match.DoesNotExist:
        raise Http404(_("No such match.")) from None
    if not visibility.result_visible(request.user, match):
        raise PermissionDenied(visibility.hidden_message())
    return match


def _version(match: Match) -> str:
    """Changes whenever a turn is recorded or undone, an undo is asked, the match
    ends, or scorer mode is proposed or switched."""
    turns = Turn.objects.filter(game__match=match).aggregate(
        last=Max("id"), undone=Count("undone_at")
    )
    undo = UndoRequest.objects.filter(match=match).aggregate(
        last=Max("id"), closed=Count("closed_at")
    )
    return "{}.{}.{}{}.{}.{}.{}.{}".format(
        match.state,
        match.result_status,
        "s" if match.scorer_mode else "",
        match.scorer_proposed_by or "",
        turns["last"] or 0,
        turns["undone"],
        undo["last"] or 0,
        undo["closed"],
    )


def _replayable(turns: list[Turn]) -> list[Turn]:
    # A loss on time is a match event, not an engine action: it ends the game as it stands.
    return [t for t in turns if t.kind != TurnKind.TIMEOUT]


def _current(match: Match) -> tuple[list[Game], Game, list[Turn], adapters.GameState]:
    """The finished games, the game on the board (unsaved when the next one has not
    started yet), its live turns and its engine state."""
    games = list(match.games.order_by("number"))
    finished = [g for g in games if g.finished]
    if games and (not games[-1].finished or match.state == MatchState.FINISHED):
        game = games[-1]
        turns = list(
            game.turns.filter(undone_at__isnull=True)
            .select_related("recorded_by__player", "clock_entered_by__player")
            .order_by("number")
        )
        return finished, game, turns, adapters.replay(match, game, _replayable(turns))
    record = adapters.engine_match(match, finished)
    score = record.score
    game = Game(
        match=match,
        number=len(games) + 1,
        score1_before=score[0],
        score2_before=score[1],
        crawford=record.next_game_crawford,
    )
    return finished, game, [], adapters.new_game_state(match, game)


def _name(match: Match, player: int | None) -> str:
    return str(match.player(player)) if player in (1, 2) else ""


def _turn_text(turn: Turn) -> str:
    if turn.kind == TurnKind.PLAY:
        return "{}: {}".format("-".join(map(str, turn.dice)), turn.moves)
    if turn.kind == TurnKind.OPENING:
        return _("Opening roll %(first)s–%(second)s") % {
            "first": turn.dice[0] if turn.dice else "?",
            "second": turn.dice[1] if len(turn.dice) > 1 else "?",
        }
    text = str(turn.get_kind_display())
    if turn.kind == TurnKind.RESIGN and turn.level:
        text += f" ({result_label(turn.level)})"
    return text


def user_name(user: Any) -> str:
    """How a user is named on the pages: their player's name, else their account's."""
    try:
        return str(user.player)
    except AttributeError:  # no player profile (RelatedObjectDoesNotExist is one)
        return user.get_full_name() or user.get_username()


def recorded_by(match: Match, turn: Turn) -> str | None:
    """Who entered the turn, when it was not the side's own player (a scorer,
    an arbiter, the importer of a match file); None when the player did.  The
    opening roll belongs to both players: either of them entering it is theirs."""
    own = {match.player1.user_id, match.player2.user_id}
    if turn.kind != TurnKind.OPENING:
        own = {match.player(turn.side).user_id}
    if turn.recorded_by_id is None or turn.recorded_by_id in own:
        return None
    return user_name(turn.recorded_by)


def physical_clock_text(turn: Turn) -> str:
    """What the turn list says of clock readings read off a physical clock (empty
    for the server's own): that they are, and who entered them."""
    if turn.clock_source != ClockSource.PHYSICAL:
        return ""
    if turn.clock_entered_by is None:  # the account was deleted since
        return _("physical clock")
    return _("physical clock, entered by %(name)s") % {"name": user_name(turn.clock_entered_by)}


def _turn_row(match: Match, turn: Turn) -> dict[str, Any]:
    by = recorded_by(match, turn)
    return {
        "number": turn.number,
        "side": turn.side,
        "kind": turn.kind,
        "dice": turn.dice,
        "moves": turn.moves,
        "level": turn.level,
        "text": _turn_text(turn),
        "recorded_by": by,
        "recorded_by_text": _("recorded by %(name)s") % {"name": by} if by else "",
        "clock_source": turn.clock_source,
        "clock_text": physical_clock_text(turn),
    }


def _game_row(match: Match, game: Game) -> dict[str, Any]:
    return {
        "number": game.number,
        "winner": game.winner,
        "winner_name": _name(match, game.winner),
        "points": game.points,
        "result": game.result,
        "result_label": result_label(game.result),
        "cube": game.cube,
        "crawford": game.crawford,
        "end": game.end,
        "replay_url": reverse("games:replay", args=[match.pk, game.number]),
    }


def _score(match: Match, finished: list[Game]) -> tuple[list[int], bool]:
    """The score shown: the official one once confirmed, else the record's (capped at N)."""
    if match.result_status == "confirmed" and match.score1 is not None:
        return [match.score1, match.score2 or 0], True
    record = adapters.engine_match(match, finished)
    final = record.final_score
    return [final[0], final[1]], False


def _cube(state: adapters.GameState) -> dict[str, Any]:
    offer = state.offer
    return {
        "enabled": state.rules.cube_enabled,
        "value": state.cube,
        "owner": adapters.player_of(state.cube_owner) if state.cube_owner is not None else None,
        "offer": (
            {"by": adapters.player_of(offer.doubler), "value": offer.value} if offer else None
        ),
    }


def _awaiting(match: Match, state: adapters.GameState) -> tuple[str, str]:
    """A code for what the board waits for, and the sentence saying it."""
    if match.state == MatchState.CANCELLED:
        return "cancelled", _("The match was cancelled.")
    if match.state == MatchState.FINISHED:
        return "match_over", _("The match is over.")
    if not match.recorded:
        return "not_recorded", _("This match is not recorded move by move.")
    name = _name(match, adapters.acting_player(state))
    code = adapters.awaited(state)
    if code == "opening":
        return code, _("Opening roll: enter one die for each player.")
    if code == "roll_or_double":
        return code, _("%(name)s to roll or double.") % {"name": name}
    if code == "roll":
        return code, _("%(name)s to roll.") % {"name": name}
    if code == "play":
        return code, _("%(name)s to play %(dice)s.") % {
            "name": name,
            "dice": "-".join(map(str, state.dice)),
        }
    if code == "take_or_pass":
        assert state.offer is not None  # adapters.awaited says so only with an offer
        return code, _("%(name)s to take or pass the double to %(value)d.") % {
            "name": name,
            "value": state.offer.value,
        }
    if code == "accept_resignation":
        assert state.resignation is not None  # likewise, only with a resignation
        return code, _("%(name)s to accept or reject the resignation (%(level)s).") % {
            "name": name,
            "level": result_label(state.resignation.level),
        }
    return code, _("The game is over.")


def may_act(user: Any, match: Match, state: adapters.GameState) -> bool:
    """Whether ``user`` may enter the action the game waits for (match.act_for_side)."""
    return permissions.can(
        user, "match.act_for_side", side_rules.SideAction(match, adapters.acting_player(state))
    )


def _actions(match: Match, state: adapters.GameState) -> list[str]:
    """The kinds of action the game waits for (whoever enters them)."""
    if not match.recorded or match.state in (MatchState.FINISHED, MatchState.CANCELLED):
        return []
    return adapters.action_kinds(state)


# --- Clocks


def _clock(match: Match, turns: list[Turn], state: adapters.GameState) -> dict[str, Any] | None:
    """The clocks of a clocked match for the state JSON; None without a clock."""
    if match.clock_mode == ClockMode.NONE:
        return None
    # The same reading a claim of a loss on time is checked against.
    clocks = services.clocks_now(match, _replayable(turns), state)
    for turn in turns:
        if turn.kind == TurnKind.TIMEOUT:
            clocks["flag"][turn.side - 1] = True
    return clocks


def snapshot(request: HttpRequest, match: Match, since: int | None = None) -> dict[str, Any]:
    """Everything the board shows, as JSON-ready data."""
    version = _version(match)
    finished, game, turns, state = _current(match)
    variant = state.variant
    score, official = _score(match, finished)
    code, status = _awaiting(match, state)
    user = request.user
    side = side_rules.side_of(request.user, match)
    open_undo = (
        UndoRequest.objects.filter(match=match, closed_at__isnull=True)
        .select_related("turn")
        .order_by("-created_at", "-id")
        .first()
    )
    last_game = None
    if not turns and finished and game.pk is None:
        last_game = _game_row(match, finished[-1])
    winner = None
    if match.state == MatchState.FINISHED:
        if official:
            winner = match.winner
        elif match.length and max(score) >= match.length:
            winner = 1 if score[0] > score[1] else 2
    to_act = state.to_act
    resignation = state.resignation
    shown = [t for t in turns if since is None or t.number > since]
    acts = may_act(user, match, state)
    actions = _actions(match, state)
    return {
        "version": version,
        "match": {
            "id": match.pk,
            "length": match.length,
            "state": match.state,
            "state_label": str(match.get_state_display()),
            "result_status": match.result_status,
            "recorded": match.recorded,
            "score": score,
            "official": official,
            "winner": winner,
            "winner_name": _name(match, winner),
        },
        "players": [str(match.player1), str(match.player2)],
        # who plays White this game (1 or 2; None while the opening names it)
        "white": adapters.white_player(state),
        "clock": _clock(match, turns, state),
        "game": {
            "number": game.number,
            "crawford": game.crawford,
            "score_before": [game.score1_before, game.score2_before],
        },
        "next_turn": len(turns) + 1,
        "phase": state.phase.value,
        "to_act": adapters.player_of(to_act) if to_act is not None else None,
        "awaiting": code,
        "status": status,
        "dice": list(state.dice),
        "dice_side": adapters.player_of(state.turn)
        if state.dice and state.turn is not None
        else None,
        "dice_count": variant.dice,
        "cube": _cube(state),
        "resignation": (
            {
                "by": adapters.player_of(resignation.side),
                "level": resignation.level,
                "label": result_label(resignation.level),
            }
            if resignation
            else None
        ),
        "position": boardsvg.locations(variant, state.position),
        "actions": actions,
        "resign_levels": [
            {"name": name, "label": result_label(name)} for name in adapters.resign_levels(state)
        ],
        "turns": [_turn_row(match, t) for t in shown],
        "since": since,
        "games": [_game_row(match, g) for g in finished],
        "last_game": last_game,
        "undo": (
            {
                "requested_by": open_undo.requester_side,
                "turn": open_undo.turn.number,
            }
            if open_undo
            else None
        ),
        "scorer": {
            "on": match.scorer_mode,
            "by_arbiter": match.scorer_mode and match.scorer_id is not None,
            "proposed_by": match.scorer_proposed_by,
        },
        "viewer": {
            "side": side,
            "can_record": permissions.can(user, "match.record", match),
            "can_arbitrate": permissions.can(user, "match.arbitrate", match),
            # What this viewer may enter: nothing while the other side is to act.
            "actions": actions if acts else [],
            "may_act": acts and bool(actions),
            "waiting_note": _waiting_note(match, state, side, acts, actions),
            "scorer": side_rules.is_scorer(user, match),
            "may_switch_scorer": permissions.can(user, "match.switch_scorer_mode", match),
            "may_request_undo": bool(turns or finished)
            and _may_act_for(user, match, side or (turns[-1].side if turns else None)),
            "may_agree_undo": open_undo is not None
            and _may_act_for(user, match, 3 - open_undo.requester_side),
        },
    }


def _may_act_for(user: Any, match: Match, side: int | None) -> bool:
    if side is None:
        return bool(side_rules.is_scorer(user, match))
    return permissions.can(user, "match.act_for_side", side_rules.SideAction(match, side))


def _waiting_note(
    match: Match, state: adapters.GameState, side: int | None, acts: bool, actions: list[str]
) -> str:
    """For a player who may not act now: whose turn it is (their controls are hidden)."""
    if side is None or acts or not actions:
        return ""
    return _("It is %(name)s's turn: you record only your own side's actions.") % {
        "name": _name(match, adapters.acting_player(state))
    }


# --- Pages


def _page_context(request: HttpRequest, match: Match) -> dict[str, Any]:
    variant = adapters.variant_for(match)
    side = side_rules.side_of(request.user, match)
    return {
        "match": match,
        "layouts": [boardsvg.layout(variant, 1), boardsvg.layout(variant, 2)],
        "perspective": side or 1,
        "hitting": variant.hitting,
        "pinning": variant.pinning,
    }


@never_cache
@require_GET
def board(request: HttpRequest, pk: int) -> HttpResponse:
    match = _get_match(request, pk)
    state = snapshot(request, match)
    context = _page_context(request, match)
    context.update(
        {
            "state": state,
            "can_record": state["viewer"]["can_record"] and match.recorded,
            "config": {
                "state_url": reverse("games:state", args=[match.pk]),
                "plays_url": reverse("games:plays", args=[match.pk]),
                "record_url": reverse("games:record", args=[match.pk]),
                "undo_url": reverse("games:undo", args=[match.pk]),
                "scorer_url": reverse("games:scorer", args=[match.pk]),
                "perspective": context["perspective"],
                "poll_ms": int(POLL_SECONDS * 1000),
                "hitting": context["hitting"],
                "pinning": context["pinning"],
            },
            "messages_js": _js_messages(),
        }
    )
    return render(request, "games/board.html", context)


def _js_messages() -> dict[str, Any]:
    """Sentences the script shows, translated here."""
    return {
        "match_to": _("Match to %(length)s"),
        "money": _("Money session"),
        "game": _("Game %(number)s"),
        "refused": _("The turn was refused: %(reason)s"),
        "conflict": _("Someone recorded this turn already; the board has been brought up to date."),
        "forbidden": _("You may not record turns of this match."),
        "network": _("The server did not answer; try again."),
        "choose_checker": _("Click a checker to move, then where it goes."),
        "choose_target": _("Now click where the checker goes (green), or another checker."),
        "complete": _("The play is complete: record it, or clear to start again."),
        "no_move": _("No legal move: record the turn as it is."),
        "won_game": _("%(name)s won game %(number)s (%(result)s), points: %(points)s."),
        "winner": _("%(name)s wins the match."),
        "undo_asked_by_you": _("You asked to undo the last turn; waiting for the opponent."),
        "undo_asked": _("%(name)s asks to undo the last turn."),
        "cube_owner": _("Cube: %(value)s, owned by %(name)s"),
        "cube_centre": _("Cube: %(value)s, in the middle"),
        "replay_start": _("Start of the game"),
        "replay_turn": _("Turn %(number)s of %(total)s"),
        "scorer_on_arbiter": _(
            "Scorer mode is on (switched on by an arbiter): the arbiter records both sides."
        ),
        "scorer_on_players": _(
            "Scorer mode is on (both players agreed): either player records both sides."
        ),
        "scorer_switch_on": _("Switch scorer mode on"),
        "scorer_switch_off": _("Switch scorer mode off"),
        "scorer_propose": _("Propose scorer mode (one device records both sides)"),
        "scorer_agree": _("Agree to scorer mode"),
        "scorer_withdraw": _("Withdraw the proposal"),
        "scorer_proposed": _("%(name)s proposes scorer mode: one device records both sides."),
        "scorer_proposed_by_you": _("You proposed scorer mode; waiting for the opponent."),
        # Soldiers: the chooser of the class that moves, when several could.
        "choose_class": _("Which checker moves from point %(point)s?"),
        "choose_class_bar": _("Which checker enters from the bar?"),
        "cancel": _("Cancel"),
        "class_names": {letter: str(name) for letter, name in CLASS_NAMES.items()},
    }


@never_cache
@require_GET
def state(request: HttpRequest, pk: int) -> JsonResponse:
    match = _get_match(request, pk)
    known = request.GET.get("v")
    if known and known == _version(match):
        return JsonResponse({"version": known, "unchanged": True})
    since_text = request.GET.get("since", "")
    # A turn number: ASCII digits, no longer than the column's (int() refuses
    # thousands of digits with ValueError, a 500).
    since = (
        int(since_text)
        if since_text.isascii() and since_text.isdigit() and len(since_text) <= 10
        else None
    )
    return JsonResponse(snapshot(request, match, since))


def _error(code: str, reason: str, status: int, **data: Any) -> JsonResponse:
    return JsonResponse({"error": {"code": code, "reason": reason, **data}}, status=status)


@never_cache
@require_GET
def plays(request: HttpRequest, pk: int) -> JsonResponse:
    """The legal plays of the entered dice, each with its steps (for clicking checkers)."""
    match = _get_match(request, pk)
    if not permissions.can(request.user, "match.record", match):
        return _error("permission_denied", _("You may not record turns of this match."), 403)
    try:
        dice = [int(d) for d in request.GET.get("dice", "").replace("-", ",").split(",") if d]
    except ValueError:
        return _error("invalid_dice", _("Dice are numbers 1 to 6, like 3-1."), 400)
    _finished, _game, turns, current = _current(match)
    try:  # entering the dice is the acting side's, like the play they lead to
        side_rules.require_side(
            request.user, match, adapters.acting_player(current), str(TurnKind.PLAY.label)
        )
    except PermissionDenied as error:
        return _error("permission_denied", str(error), 403)
    if match.state in (MatchState.FINISHED, MatchState.CANCELLED):
        return _error("match_over", _("The match is over."), 400)
    try:
        found = adapters.clickable_plays(current, dice)
    except ValidationError as error:
        return _error(error.code or "invalid", " ".join(error.messages), 400)
    found["turn"] = len(turns) + 1
    return JsonResponse(found)


def _json_body(request: HttpRequest) -> dict[str, Any]:
    try:
        body = json.loads(request.body or b"{}")
    except (ValueError, UnicodeDecodeError, RecursionError):  # RecursionError: deep nesting
        raise ValidationError(_("The request is not valid JSON."), code="bad_request") from None
    if not isinstance(body, dict):
        raise ValidationError(_("The request is not valid JSON."), code="bad_request")
    return body


def _turn_fields(body: dict[str, Any]) -> dict[str, Any]:
    number = body.get("number")
    kind = body.get("kind")
    dice = body.get("dice", [])
    moves = body.get("moves", "")
    level = body.get("level", "")
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        raise ValidationError(_("The turn number is missing."), code="bad_request")
    if kind not in TurnKind.values:
        raise ValidationError(_("Unknown action."), code="bad_request")
    if not isinstance(dice, list) or not all(
        isinstance(d, int) and not isinstance(d, bool) for d in dice
    ):
        raise ValidationError(_("Dice are numbers 1 to 6, like 3-1."), code="invalid_dice")
    if not isinstance(moves, str) or not isinstance(level, str) or len(moves) > 200:
        raise ValidationError(_("The moves are not valid text."), code="bad_request")
    fields = {"number": number, "kind": kind, "dice": dice, "moves": moves, "level": level}
    # The page never sends a clock reading (the server charges the clocks); one sent
    # anyway is a physical clock's, which the service takes only from an arbiter.
    if "clock" in body:
        fields["physical_clock"] = _clock_reading(body["clock"])
    return fields


def _clock_reading(given: Any) -> tuple[int, int]:
    if (
        not isinstance(given, list)
        or len(given) != 2
        or not all(isinstance(ms, int) and not isinstance(ms, bool) for ms in given)
        or not all(0 <= ms <= MAX_CLOCK_MS for ms in given)
    ):
        raise ValidationError(
            _("A clock reading is two numbers of milliseconds, for player 1 and player 2."),
            code="bad_request",
        )
    return given[0], given[1]


def _service_error(error: Exception) -> JsonResponse:
    if isinstance(error, services.RecordingError):
        return _error(error.code, error.reason, 400, turn=error.turn, **error.data)
    if isinstance(error, services.TurnConflict):
        return _error(error.code, str(error), 409, expected=error.expected)
    if isinstance(error, PermissionDenied):
        return _error("permission_denied", str(error) or _("Not allowed."), 403)
    if isinstance(error, locking.Busy):
        return _error("busy", " ".join(error.messages), 503)
    assert isinstance(error, ValidationError)
    return _error(error.code or "invalid", " ".join(error.messages), 400)


@never_cache
@require_POST
def record(request: HttpRequest, pk: int) -> JsonResponse:
    """Record one turn: ``{"number", "kind", "dice", "moves", "level"}`` (and ``"clock"``,
    a physical clock's reading, only from an arbiter)."""
    match = _get_match(request, pk)
    try:
        fields = _turn_fields(_json_body(request))
        recorded = services.record_turn(match, by=request.user, **fields)
    except (
        services.RecordingError,
        services.TurnConflict,
        PermissionDenied,
        ValidationError,
    ) as error:
        return _service_error(error)
    match.refresh_from_db()
    return JsonResponse(
        {"turn": _turn_row(match, recorded.turn), "state": snapshot(request, match)}
    )


@never_cache
@require_POST
def undo(request: HttpRequest, pk: int) -> JsonResponse:
    """``{"action": "request" | "agree" | "arbiter"}``: take back the last turn."""
    match = _get_match(request, pk)
    try:
        action = _json_body(request).get("action")
        if action == "request":
            services.request_undo(match, by=request.user)
        elif action == "agree":
            pending = (
                UndoRequest.objects.filter(match=match, closed_at__isnull=True)
                .order_by("-created_at", "-id")
                .first()
            )
            if pending is None:
                raise ValidationError(_("Nobody has asked to undo a turn."), code="no_request")
            services.agree_undo(pending, by=request.user)
        elif action == "arbiter":
            services.arbiter_undo(match, by=request.user)
        else:
            raise ValidationError(_("Unknown action."), code="bad_request")
    except (PermissionDenied, ValidationError) as error:
        return _service_error(error)
    match.refresh_from_db()
    return JsonResponse({"state": snapshot(request, match)})


@never_cache
@require_POST
def scorer(request: HttpRequest, pk: int) -> JsonResponse:
    """``{"action": "on" | "off"}``: switch scorer mode (a player's "on" proposes
    it until the opponent agrees; see games.services.set_scorer_mode)."""
    match = _get_match(request, pk)
    try:
        action = _json_body(request).get("action")
        if action not in ("on", "off"):
            raise ValidationError(_("Unknown action."), code="bad_request")
        services.set_scorer_mode(match, by=request.user, on=action == "on")
    except (PermissionDenied, ValidationError) as error:
        return _service_error(error)
    match.refresh_from_db()
    return JsonResponse({"state": snapshot(request, match)})


@never_cache
@require_GET
def replay(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """One game turn by turn: its positions replayed through the engine from the stored turns."""
    match = _get_match(request, pk)
    game = match.games.filter(number=number).first()
    if game is None:
        raise Http404(_("No such game."))
    turns = _replayable(
        list(
            game.turns.filter(undone_at__isnull=True)
            .select_related("recorded_by__player", "clock_entered_by__player")
            .order_by("number")
        )
    )
    state = adapters.new_game_state(match, game)
    variant = state.variant
    frames = [_frame(match, state, None, _("Start of the game"))]
    for turn in turns:
        state = adapters.apply_turn(
            state, adapters.TurnInput(turn.kind, tuple(turn.dice), turn.moves, turn.level)
        )
        frames.append(_frame(match, state, turn, _turn_text(turn)))
    context = _page_context(request, match)
    games = list(match.games.order_by("number"))
    # What higher apps say of each turn (the analysis: its mark and the best play).
    notes = match_extras.turn_notes(request, match, game)
    context.update(
        {
            "game": game,
            "games": games,
            "turns": [_turn_row(match, t) | {"notes": notes.get(t.pk, [])} for t in turns],
            "extra_styles": match_extras.stylesheets(),
            "frames": frames,
            "result_label": result_label(game.result) if game.finished else "",
            "winner_name": _name(match, game.winner),
            "config": {
                "perspective": context["perspective"],
                "hitting": variant.hitting,
                "pinning": variant.pinning,
            },
            "messages_js": _js_messages(),
        }
    )
    return render(request, "games/replay.html", context)


def _frame(match: Match, state: adapters.GameState, turn: Turn | None, text: str) -> dict[str, Any]:
    dice: list[int] = []
    dice_side = None
    if turn is not None and turn.kind == TurnKind.PLAY:
        dice, dice_side = list(turn.dice), turn.side
    return {
        "text": text,
        "side": turn.side if turn is not None else None,
        "position": boardsvg.locations(state.variant, state.position),
        "white": adapters.white_player(state),
        "dice": dice,
        "dice_side": dice_side,
        "cube": _cube(state),
        "finished": state.finished,
    }
