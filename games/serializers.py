"""Serializers of the games API.  They validate and shape data; every write is
handed to games.services (which checks permissions through clubs.permissions)."""

from __future__ import annotations

from typing import Any

from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.settings import api_settings

from base.fields import SMALL, BoundedIntegers
from clubs import permissions
from clubs.models import Discipline, Player
from clubs.serializers import service_errors
from games import queries, services, visibility
from games.models import (
    PLAYER_CHOICES,
    ClockMode,
    ClockSource,
    Game,
    Match,
    ReportResponse,
    ResultReport,
    Turn,
    TurnKind,
)


class _ActingUser:
    context: dict[str, Any]

    @property
    def acting_user(self) -> Any:
        request = self.context.get("request")
        return getattr(request, "user", None)


# What a hidden result leaves out of a match (games.visibility).
RESULT_FIELDS = ("score1", "score2", "winner", "forfeit", "lost_on_time")


def _match_setting_bounds() -> dict[str, dict[str, int]]:
    """The match length and clock a request may ask for: what the match form allows
    (a clock's reserve in seconds keeps every reading within Turn.clock*_ms)."""
    from games.forms import MAX_LENGTH, MatchForm

    def most(name: str) -> int:
        return int(MatchForm.base_fields[name].max_value)  # type: ignore[attr-defined]

    return {
        "length": {"min_value": 0, "max_value": MAX_LENGTH},
        "clock_reserve_seconds": {"min_value": 0, "max_value": 60 * most("reserve_minutes")},
        "clock_per_point_seconds": {"min_value": 0, "max_value": 60 * most("per_point_minutes")},
        "clock_move_seconds": {"min_value": 0, "max_value": most("move_seconds")},
    }


MATCH_SETTING_BOUNDS = _match_setting_bounds()
# A score is at most the match length (games.adapters.check_report says so by
# field); a money session's, at most what its column holds.
SCORE_BOUNDS = {"min_value": 0, "max_value": SMALL[1]}


class MatchSerializer(BoundedIntegers, _ActingUser, serializers.ModelSerializer):
    """A match; player 1 plays White, player 2 Black (where each game's opening
    names the colours, Nauka i Zhizn, the higher thrower plays White).  The
    score is the official (confirmed) result, null until there is one."""

    player1 = serializers.PrimaryKeyRelatedField(queryset=Player.objects.none())
    player2 = serializers.PrimaryKeyRelatedField(queryset=Player.objects.none())
    player1_name = serializers.CharField(source="player1", read_only=True)
    player2_name = serializers.CharField(source="player2", read_only=True)
    discipline = serializers.SlugRelatedField(
        slug_field="code", queryset=Discipline.objects.all(), help_text=_("Discipline code.")
    )
    clock = serializers.SerializerMethodField(help_text=_("The time control in words."))
    winner = serializers.IntegerField(
        read_only=True, allow_null=True, help_text=_("1 or 2 once the result is official.")
    )
    result_hidden = serializers.SerializerMethodField(
        help_text=_(
            "True while the result is not published to you (a silent round): the score, "
            "winner, forfeit and loss on time then read as null."
        )
    )

    class Meta:
        model = Match
        fields = [
            "id",
            "player1",
            "player2",
            "player1_name",
            "player2_name",
            "discipline",
            "federation",
            "length",
            "recorded",
            "clock_mode",
            "clock_reserve_seconds",
            "clock_per_point_seconds",
            "clock_move_seconds",
            "clock",
            "state",
            "result_status",
            "score1",
            "score2",
            "winner",
            "forfeit",
            "lost_on_time",
            "result_hidden",
            "cancel_reason",
            "cancelled_at",
            "created_at",
            "started_at",
            "finished_at",
        ]
        read_only_fields = [
            "federation",
            "state",
            "result_status",
            "score1",
            "score2",
            "winner",
            "forfeit",
            "lost_on_time",
            "cancel_reason",
            "cancelled_at",
            "created_at",
            "started_at",
            "finished_at",
        ]
        extra_kwargs = MATCH_SETTING_BOUNDS

    def get_fields(self) -> dict[str, serializers.Field]:
        fields = super().get_fields()
        visible = Player.objects.filter(
            Q(federation__in=permissions.visible_federations(self.acting_user))
            | Q(federation__isnull=True),
            merged_into__isnull=True,
        )
        fields["player1"].queryset = visible  # type: ignore[attr-defined]
        fields["player2"].queryset = visible  # type: ignore[attr-defined]
        return fields

    @extend_schema_field(OpenApiTypes.STR)
    def get_clock(self, match: Match) -> str:
        return queries.clock_label(match)

    @extend_schema_field(OpenApiTypes.BOOL)
    def get_result_hidden(self, match: Match) -> bool:
        return not visibility.result_visible(self.acting_user, match)

    def to_representation(self, instance: Match) -> dict[str, Any]:
        data = super().to_representation(instance)
        if data.get("result_hidden"):
            for name in RESULT_FIELDS:
                data[name] = None
        return data

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs.get("clock_mode", ClockMode.NONE) == ClockMode.NONE:
            for name in ("clock_reserve_seconds", "clock_per_point_seconds", "clock_move_seconds"):
                attrs[name] = 0
        return attrs

    def create(self, validated_data: dict[str, Any]) -> Match:
        with service_errors():
            return services.create_match(by=self.acting_user, **validated_data)


class GameSerializer(serializers.ModelSerializer):
    """A game of a match: the score before it and, once over, how it ended."""

    class Meta:
        model = Game
        fields = [
            "number",
            "score1_before",
            "score2_before",
            "crawford",
            "winner",
            "result",
            "multiplier",
            "cube",
            "points",
            "end",
        ]


class TurnSerializer(serializers.ModelSerializer):
    """A recorded action; undone turns stay in the list with ``undone_at`` set."""

    game = serializers.IntegerField(source="game.number", read_only=True)
    side = serializers.IntegerField(read_only=True, help_text=_("The player acting: 1 or 2."))
    recorded_by = serializers.CharField(
        source="recorded_by.get_username",
        read_only=True,
        default=None,
        allow_null=True,  # the account may have been deleted since
        help_text=_("The account that entered the turn (a scorer may enter both sides)."),
    )
    clock_source = serializers.ChoiceField(
        choices=ClockSource.choices,
        read_only=True,
        help_text=_(
            "Where the clock readings come from: server (charged by the server from its "
            "own time stamps) or physical (read off a physical clock by an arbiter or "
            "the scorer an arbiter appointed)."
        ),
    )
    clock_entered_by = serializers.CharField(
        source="clock_entered_by.get_username",
        read_only=True,
        default=None,
        allow_null=True,
        help_text=_("The account that entered the readings of a physical clock."),
    )

    class Meta:
        model = Turn
        fields = [
            "game",
            "number",
            "side",
            "kind",
            "dice",
            "moves",
            "level",
            "position_id",
            "position_text",
            "clock1_ms",
            "clock2_ms",
            "clock_source",
            "clock_entered_by",
            "recorded_by",
            "recorded_at",
            "undone_at",
        ]


# The column bounds of Turn.number and Turn.clock*_ms (PositiveIntegerField).
MAX_TURN_NUMBER = MAX_CLOCK_MS = 2_147_483_647


class TurnInputSerializer(serializers.Serializer):
    """The next action of the current game, checked by the rules engine."""

    number = serializers.IntegerField(
        min_value=1,
        max_value=MAX_TURN_NUMBER,
        help_text=_("The next turn number of the current game."),
    )
    kind = serializers.ChoiceField(choices=[k for k in TurnKind.values if k != TurnKind.TIMEOUT])
    dice = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=6),
        max_length=3,
        required=False,
        default=list,
    )
    moves = serializers.CharField(required=False, allow_blank=True, default="", max_length=200)
    level = serializers.CharField(required=False, allow_blank=True, default="", max_length=20)
    clock = serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=MAX_CLOCK_MS),
        min_length=2,
        max_length=2,
        required=False,
        help_text=_(
            "Only for a game played over the board with a physical clock: the milliseconds "
            "it shows for player 1 and player 2 after the turn, entered by an arbiter of "
            "the match or the scorer an arbiter appointed (refused with 400 clock_not_yours "
            "from anyone else).  Otherwise the server charges the clocks itself."
        ),
    )

    def error_body(self) -> dict[str, Any]:
        """The field errors of an invalid request in the shape of TurnErrorSerializer:
        one sentence naming each field and what is wrong with it."""
        return {
            "code": "invalid",
            "reason": " ".join(_field_messages(self.errors)),
            "turn": self._valid_number(),
        }

    def _valid_number(self) -> int | None:
        """The turn number the request gave, when that field is valid by itself."""
        given = self.initial_data
        if "number" in self.errors or not hasattr(given, "get"):
            return None
        try:
            number: int = self.fields["number"].run_validation(given.get("number"))
        except serializers.ValidationError:
            return None
        return number


def _field_messages(errors: Any, where: str = "") -> list[str]:
    """``errors`` of a serializer (fields, list items, nested) as "where: message" lines;
    a message of the whole request has no "where"."""
    if isinstance(errors, dict):
        lines = []
        for key, value in errors.items():
            if key == api_settings.NON_FIELD_ERRORS_KEY:
                name = where
            elif isinstance(key, int) or str(key).isdigit():  # an item of a list field
                name = f"{where}[{key}]"
            else:
                name = f"{where}.{key}" if where else str(key)
            lines.extend(_field_messages(value, name))
        return lines
    if isinstance(errors, list):
        return [line for value in errors for line in _field_messages(value, where)]
    return [f"{where}: {errors}" if where else str(errors)]


def turn_error_body(data: Any) -> dict[str, Any]:
    """An error DRF answered for a turn (``{"detail": ...}``, with its code) in the
    shape of TurnErrorSerializer; a body in that shape already is kept."""
    if isinstance(data, dict) and {"code", "reason", "turn"} <= data.keys():
        return data
    detail = data.get("detail") if isinstance(data, dict) else None
    if detail is None:
        return {"code": "invalid", "reason": " ".join(_field_messages(data)), "turn": None}
    return {"code": getattr(detail, "code", None) or "error", "reason": str(detail), "turn": None}


class UndoInputSerializer(serializers.Serializer):
    action = serializers.ChoiceField(
        choices=["request", "agree", "arbiter"],
        help_text=_(
            "request: ask to take back the last turn (for your side); agree: the "
            "opponent of the asker agrees; arbiter: an arbiter undoes it at once."
        ),
    )
    side = serializers.ChoiceField(
        choices=PLAYER_CHOICES,
        required=False,
        allow_null=True,
        default=None,
        help_text=_("A scorer asks for this side (default: the side of the last turn)."),
    )


class UndoRequestSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    turn = serializers.IntegerField(source="turn.number")
    requester_side = serializers.IntegerField()


class TimeoutInputSerializer(serializers.Serializer):
    loser = serializers.ChoiceField(
        choices=PLAYER_CHOICES, help_text=_("The player (1 or 2) whose time ran out.")
    )


class ScorerInputSerializer(serializers.Serializer):
    on = serializers.BooleanField(
        help_text=_(
            "Switch scorer mode on or off.  A player's 'on' proposes it until the "
            "opponent's 'on' agrees; an arbiter's takes effect at once."
        )
    )


class ScorerSerializer(serializers.ModelSerializer):
    class Meta:
        model = Match
        fields = ["id", "scorer_mode", "scorer", "scorer_proposed_by"]
        read_only_fields = fields


class TurnErrorSerializer(serializers.Serializer):
    """Every error of recording a turn: a code, a sentence, and the turn concerned."""

    code = serializers.CharField(
        help_text=_("The engine's code, or invalid, clock_not_yours, permission_denied...")
    )
    reason = serializers.CharField(help_text=_("What is wrong and where, translated."))
    turn = serializers.IntegerField(
        allow_null=True,
        help_text=_(
            "The turn number concerned (the expected one for 409); null when the request "
            "named no valid turn number."
        ),
    )


class ResponseSerializer(serializers.ModelSerializer):
    # Null for the confirmation the deadline gives, and once the account is deleted.
    by = serializers.CharField(
        source="by.get_username", read_only=True, default=None, allow_null=True
    )

    class Meta:
        model = ReportResponse
        fields = ["kind", "by", "reason", "at"]


class GameLogEntrySerializer(serializers.Serializer):
    """One game of a reported log (games.scorecheck checks the log adds up)."""

    winner = serializers.ChoiceField(choices=PLAYER_CHOICES, help_text=_("1 or 2."))
    points = serializers.IntegerField(min_value=1, max_value=SMALL[1])
    result = serializers.CharField(max_length=20, required=False, allow_blank=True, default="")
    cube = serializers.IntegerField(min_value=1, max_value=SMALL[1], required=False, default=1)
    crawford = serializers.BooleanField(required=False, default=False)


class GameLogField(serializers.ListField):
    """The games of a report: each one checked on the way in; shown as stored (a
    log read from a .mat file also has each game's number and how it ended)."""

    child = GameLogEntrySerializer()

    def to_representation(self, data: Any) -> list[Any]:
        return list(data or [])


class ReportSerializer(BoundedIntegers, _ActingUser, serializers.ModelSerializer):
    """One version of a match result; only a confirmed one counts.  Creating one
    reports the final score (optionally with the game log or a .mat file)."""

    match = serializers.PrimaryKeyRelatedField(queryset=Match.objects.none())
    reported_by = serializers.CharField(
        source="reported_by.get_username",
        read_only=True,
        default=None,
        allow_null=True,
        help_text=_(
            "The account that reported it; null for a result the board recorded from the "
            "played turns, and once the account is deleted."
        ),
    )
    responses = ResponseSerializer(many=True, read_only=True)
    games = GameLogField(
        required=False,
        default=list,
        max_length=500,
        help_text=_("Games in order: {winner: 1|2, points, result, cube, crawford}."),
    )
    awaits_official = serializers.SerializerMethodField(
        help_text=_(
            "True while the result waits for a club or federation official's confirmation "
            "(the player who must answer has no account); it has no deadline then."
        )
    )

    class Meta:
        model = ResultReport
        fields = [
            "id",
            "match",
            "source",
            "reported_by",
            "reporter_side",
            "score1",
            "score2",
            "games",
            "mat_text",
            "reason",
            "status",
            "deadline",
            "created_at",
            "decided_at",
            "responses",
            "awaits_official",
        ]
        read_only_fields = [
            "source",
            "reporter_side",
            "reason",
            "status",
            "deadline",
            "created_at",
            "decided_at",
        ]
        extra_kwargs = {
            "mat_text": {"required": False},
            "score1": SCORE_BOUNDS,
            "score2": SCORE_BOUNDS,
        }

    def get_fields(self) -> dict[str, serializers.Field]:
        fields = super().get_fields()
        fields["match"].queryset = queries.visible_matches(self.acting_user)  # type: ignore[attr-defined]
        return fields

    def get_awaits_official(self, report: ResultReport) -> bool:
        return services.awaits_official(report)

    def validate_mat_text(self, value: str) -> str:
        # The form's limit for an uploaded file, checked before the engine reads it.
        from games.forms import check_match_file_size

        check_match_file_size(len(value.encode("utf-8")))
        return value

    def create(self, validated_data: dict[str, Any]) -> ResultReport:
        with service_errors():
            return services.submit_report(
                validated_data["match"],
                by=self.acting_user,
                score1=validated_data["score1"],
                score2=validated_data["score2"],
                games=validated_data.get("games") or None,
                mat_text=validated_data.get("mat_text", ""),
            )


class DisputeSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=2000)


class DecideSerializer(serializers.Serializer):
    uphold = serializers.BooleanField(
        help_text=_("True: the reported result stands; false: the score given here.")
    )
    reason = serializers.CharField(max_length=2000)
    score1 = serializers.IntegerField(**SCORE_BOUNDS, required=False, allow_null=True)
    score2 = serializers.IntegerField(**SCORE_BOUNDS, required=False, allow_null=True)


class CancelSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=2000)


class OverrideSerializer(serializers.Serializer):
    score1 = serializers.IntegerField(**SCORE_BOUNDS)
    score2 = serializers.IntegerField(**SCORE_BOUNDS)
    reason = serializers.CharField(max_length=2000)
    forfeit = serializers.BooleanField(required=False, default=False)
