"""Serializers of the games API.  They validate and shape data; every write is
handed to games.services (which checks permissions through clubs.permissions)."""

from __future__ import annotations

from typing import Any

from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from clubs import permissions
from clubs.models import Discipline, Player
from clubs.serializers import service_errors
from games import queries, services, visibility
from games.models import (
    PLAYER_CHOICES,
    ClockMode,
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


class MatchSerializer(_ActingUser, serializers.ModelSerializer):
    """A match; player 1 plays White, player 2 Black.  The score is the official
    (confirmed) result, null until there is one."""

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
        help_text=_("The account that entered the turn (a scorer may enter both sides)."),
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
            "clock1_ms",
            "clock2_ms",
            "recorded_by",
            "recorded_at",
            "undone_at",
        ]


class TurnInputSerializer(serializers.Serializer):
    """The next action of the current game, checked by the rules engine."""

    number = serializers.IntegerField(
        min_value=1, help_text=_("The next turn number of the current game.")
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
        child=serializers.IntegerField(min_value=0, allow_null=True),
        min_length=2,
        max_length=2,
        required=False,
        help_text=_("Milliseconds left on the clocks of player 1 and player 2 after the turn."),
    )


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
    code = serializers.CharField()
    reason = serializers.CharField()
    turn = serializers.IntegerField()


class ResponseSerializer(serializers.ModelSerializer):
    by = serializers.CharField(source="by.get_username", read_only=True, default=None)

    class Meta:
        model = ReportResponse
        fields = ["kind", "by", "reason", "at"]


class ReportSerializer(_ActingUser, serializers.ModelSerializer):
    """One version of a match result; only a confirmed one counts.  Creating one
    reports the final score (optionally with the game log or a .mat file)."""

    match = serializers.PrimaryKeyRelatedField(queryset=Match.objects.none())
    reported_by = serializers.CharField(
        source="reported_by.get_username", read_only=True, default=None
    )
    responses = ResponseSerializer(many=True, read_only=True)
    games = serializers.ListField(
        child=serializers.DictField(),
        required=False,
        default=list,
        help_text=_("Games in order: {winner: 1|2, points, result, cube}."),
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
        extra_kwargs = {"mat_text": {"required": False}}

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
    score1 = serializers.IntegerField(min_value=0, required=False, allow_null=True)
    score2 = serializers.IntegerField(min_value=0, required=False, allow_null=True)


class CancelSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=2000)


class OverrideSerializer(serializers.Serializer):
    score1 = serializers.IntegerField(min_value=0)
    score2 = serializers.IntegerField(min_value=0)
    reason = serializers.CharField(max_length=2000)
    forfeit = serializers.BooleanField(required=False, default=False)
