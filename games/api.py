"""REST API of the games app: matches, their games and turns, result reports.

Everyone reads the matches they may see (games.queries.visible_matches, the
same as the pages); a result that games.visibility hides from the reader
(a silent round's) reads as null, its games and turns answer 403 and its
reports are not listed.  Writes go through games.services; where a write has a
rule in clubs.permissions it is asked first, so a refused write never reaches
validation (HTTP 403).  Recording a turn answers an illegal turn with the
engine's code and reason (HTTP 400) and a turn number already taken with
HTTP 409.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import Prefetch, QuerySet
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.routers import BaseRouter

from base import locking
from clubs import permissions
from clubs.serializers import service_errors
from games import filters, queries, services, visibility
from games.models import Match, ReportResponse, ResultReport, Turn, UndoRequest
from games.serializers import (
    CancelSerializer,
    DecideSerializer,
    DisputeSerializer,
    GameSerializer,
    MatchSerializer,
    OverrideSerializer,
    ReportSerializer,
    ScorerInputSerializer,
    ScorerSerializer,
    TimeoutInputSerializer,
    TurnErrorSerializer,
    TurnInputSerializer,
    TurnSerializer,
    UndoInputSerializer,
    UndoRequestSerializer,
    turn_error_body,
)


def _require(request: Request, rule: str, match: Match) -> None:
    if not permissions.can(request.user, rule, match):
        raise PermissionDenied


def _refused(error: PermissionDenied, **data: Any) -> Response:
    """A service's refusal (e.g. an action of the other side) as 403 with its message."""
    return Response(
        {"code": "permission_denied", "reason": str(error), **data},
        status=status.HTTP_403_FORBIDDEN,
    )


def _require_result_visible(request: Request, match: Match) -> None:
    """The games and turns of a match tell its result: only to those who may see it."""
    if not visibility.result_visible(request.user, match):
        raise PermissionDenied(visibility.hidden_message())


@extend_schema_view(
    list=extend_schema(
        summary="Matches",
        description="The matches you may see: filter by player, state, federation.",
    ),
    create=extend_schema(
        summary="Arrange a match",
        description="A player with their own profile, or staff for players they manage.",
    ),
)
class MatchViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    viewsets.GenericViewSet,
):
    serializer_class = MatchSerializer
    filterset_class = filters.MatchFilter
    ordering_fields = ["created_at", "finished_at", "id"]

    def handle_exception(self, exc: Exception) -> Response:
        response = super().handle_exception(exc)
        if self.action == "turns" and self.request.method == "POST":
            # Recording a turn documents one error shape (TurnErrorSerializer): the
            # refusals raised before the action runs (not signed in, no such match,
            # a body that does not parse) are worded in it too.
            response.data = turn_error_body(response.data)
        return response

    def get_queryset(self) -> QuerySet[Match]:
        matches = queries.with_players(queries.visible_matches(self.request.user))
        # Each match knows whether its result may be shown (the serializer asks).
        return visibility.hide_results(matches, self.request.user).order_by("-created_at", "-id")

    @extend_schema(
        summary="Games of a match",
        description="In playing order, paged like every list (a money session has no end).",
        responses=GameSerializer(many=True),
    )
    @action(detail=True, methods=["get"], filter_backends=[])
    def games(self, request: Request, pk: str | None = None) -> Response:
        match = self.get_object()
        _require_result_visible(request, match)
        page = self.paginate_queryset(match.games.order_by("number"))
        return self.get_paginated_response(GameSerializer(page, many=True).data)

    @extend_schema(
        methods=["GET"],
        summary="Turns of a match",
        description="Every recorded action, game by game, undone ones included.",
        responses=TurnSerializer(many=True),
    )
    @extend_schema(
        methods=["POST"],
        summary="Record the next turn",
        description=(
            "The rules engine checks the turn.  An illegal turn is refused with the "
            "engine's code and reason (400) and saves nothing; a turn number that is "
            "not the next one (another client was faster, or a stale page) gets 409.  "
            "Only the player of the side that must act records it (the opening roll: "
            "either player), or a scorer while scorer mode is on; anyone else gets 403.  "
            "The server charges the players' clocks from its own time stamps: a clock "
            "reading is refused (400 clock_not_yours) unless an arbiter of the match, or "
            "the scorer an arbiter appointed, enters it off a physical clock.  Every "
            "error has the same shape: code, reason and the turn number (null when the "
            "request gave no valid one)."
        ),
        request=TurnInputSerializer,
        responses={
            201: TurnSerializer,
            400: OpenApiResponse(
                TurnErrorSerializer,
                description="Illegal turn, invalid field (code invalid), or a clock reading "
                "from someone who may not enter one (clock_not_yours).",
            ),
            401: OpenApiResponse(
                TurnErrorSerializer,
                description="No credentials, or an API token refused (unknown, revoked, "
                "expired): code not_authenticated or authentication_failed.",
            ),
            403: OpenApiResponse(TurnErrorSerializer, description="Not this user's side."),
            404: OpenApiResponse(TurnErrorSerializer, description="No such match for you."),
            409: OpenApiResponse(TurnErrorSerializer, description="Turn number taken."),
            503: OpenApiResponse(
                TurnErrorSerializer,
                description="Someone else is changing the match right now (code busy): "
                "try again in a moment.",
            ),
        },
    )
    @action(detail=True, methods=["get", "post"], filter_backends=[])
    def turns(self, request: Request, pk: str | None = None) -> Response:
        match = self.get_object()
        if request.method == "GET":
            _require_result_visible(request, match)
            turns = (
                Turn.objects.filter(game__match=match)
                .select_related("game", "recorded_by", "clock_entered_by")
                .order_by("game__number", "number", "id")
            )
            page = self.paginate_queryset(turns)
            data = TurnSerializer(page, many=True).data
            return self.get_paginated_response(data)
        if not permissions.can(request.user, "match.record", match):
            return _refused(
                PermissionDenied(_("You may not record turns of this match.")), turn=None
            )
        given = TurnInputSerializer(data=request.data)
        if not given.is_valid():
            return Response(given.error_body(), status=status.HTTP_400_BAD_REQUEST)
        turn = given.validated_data
        clock = turn.get("clock")
        try:
            recorded = services.record_turn(
                match,
                by=request.user,
                number=turn["number"],
                kind=turn["kind"],
                dice=turn["dice"],
                moves=turn["moves"],
                level=turn["level"],
                physical_clock=(clock[0], clock[1]) if clock is not None else None,
            )
        except PermissionDenied as error:
            return _refused(error, turn=turn["number"])
        except services.RecordingError as error:
            return Response(
                {"code": error.code, "reason": error.reason, "turn": error.turn},
                status=status.HTTP_400_BAD_REQUEST,
            )
        except services.TurnConflict as error:
            return Response(
                {"code": error.code, "reason": str(error), "turn": error.expected},
                status=status.HTTP_409_CONFLICT,
            )
        except locking.Busy as error:  # the match row stayed locked too long: try again
            return Response(
                {"code": "busy", "reason": " ".join(error.messages), "turn": turn["number"]},
                status=status.HTTP_503_SERVICE_UNAVAILABLE,
            )
        except DjangoValidationError as error:
            return Response(
                {
                    "code": getattr(error, "code", None) or "invalid",
                    "reason": " ".join(error.messages),
                    "turn": turn["number"],
                },
                status=status.HTTP_400_BAD_REQUEST,
            )
        recorded.turn.game = recorded.game
        return Response(TurnSerializer(recorded.turn).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Undo the last turn",
        description="A player asks for their side (a scorer for either side), the opponent of "
        "the asker agrees, or an arbiter undoes at once.  Anyone else gets 403.",
        request=UndoInputSerializer,
        responses={201: UndoRequestSerializer, 200: TurnSerializer},
    )
    @action(detail=True, methods=["post"], filter_backends=[])
    def undo(self, request: Request, pk: str | None = None) -> Response:
        match = self.get_object()
        _require(request, "match.record", match)
        given = UndoInputSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        data = given.validated_data
        try:
            with service_errors():
                if data["action"] == "request":
                    asked = services.request_undo(match, by=request.user, side=data["side"])
                    return Response(
                        UndoRequestSerializer(asked).data, status=status.HTTP_201_CREATED
                    )
                if data["action"] == "agree":
                    pending = (
                        UndoRequest.objects.filter(match=match, closed_at__isnull=True)
                        .order_by("-created_at", "-id")
                        .first()
                    )
                    if pending is None:
                        return Response(
                            {"code": "no_request", "reason": str(_("Nobody asked to undo."))},
                            status=status.HTTP_400_BAD_REQUEST,
                        )
                    undone = services.agree_undo(pending, by=request.user)
                else:
                    undone = services.arbiter_undo(match, by=request.user)
        except PermissionDenied as error:
            return _refused(error)
        return Response(TurnSerializer(undone).data)

    @extend_schema(
        summary="Claim a loss on time",
        description="The opponent of the player whose time ran out (or a scorer, or an "
        "arbiter) records it: that player loses the match.",
        request=TimeoutInputSerializer,
        responses=MatchSerializer,
    )
    @action(detail=True, methods=["post"], filter_backends=[])
    def timeout(self, request: Request, pk: str | None = None) -> Response:
        match = self.get_object()
        _require(request, "match.record", match)
        given = TimeoutInputSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        try:
            with service_errors():
                ended = services.record_timeout(
                    match, by=request.user, loser=given.validated_data["loser"]
                )
        except PermissionDenied as error:
            return _refused(error)
        return Response(self.get_serializer(ended).data)

    @extend_schema(
        summary="Switch scorer mode",
        description="Scorer mode lets one device record both sides (a game played over the "
        "board).  An arbiter switches it on or off at once; a player's 'on' proposes it and "
        "the opponent's 'on' agrees; either player switches off what they agreed to.",
        request=ScorerInputSerializer,
        responses=ScorerSerializer,
    )
    @action(detail=True, methods=["post"], filter_backends=[])
    def scorer(self, request: Request, pk: str | None = None) -> Response:
        match = self.get_object()
        _require(request, "match.switch_scorer_mode", match)
        given = ScorerInputSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        try:
            with service_errors():
                switched = services.set_scorer_mode(
                    match, by=request.user, on=given.validated_data["on"]
                )
        except PermissionDenied as error:
            return _refused(error)
        return Response(ScorerSerializer(switched).data)

    @extend_schema(
        summary="Override the result (organizers)",
        description="Sets the official result with a written reason; earlier versions are kept.",
        request=OverrideSerializer,
        responses=ReportSerializer,
    )
    @action(detail=True, methods=["post"], filter_backends=[])
    def override(self, request: Request, pk: str | None = None) -> Response:
        match = self.get_object()
        _require(request, "match.override", match)
        given = OverrideSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        with service_errors():
            report = services.override_result(match, by=request.user, **given.validated_data)
        return Response(ReportSerializer(report, context={"request": request}).data)

    @extend_schema(
        summary="Cancel the match (organizers)",
        description="Nobody wins it (both absent, paired by mistake); a confirmed result stops "
        "counting in ratings and standings.  Reports and turns are kept; an override gives the "
        "match a result again.",
        request=CancelSerializer,
        responses=MatchSerializer,
    )
    @action(detail=True, methods=["post"], filter_backends=[])
    def cancel(self, request: Request, pk: str | None = None) -> Response:
        match = self.get_object()
        _require(request, "match.override", match)
        given = CancelSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        with service_errors():
            cancelled = services.cancel_match(match, by=request.user, **given.validated_data)
        return Response(self.get_serializer(cancelled).data)


@extend_schema_view(
    list=extend_schema(summary="Result reports", description="Every version, newest first."),
    create=extend_schema(
        summary="Report a result",
        description="The final score of a match not recorded move by move, optionally "
        "with the game log or the text of a .mat file (checked by the rules engine).  "
        "A player's report waits for the opponent; a result an arbiter or organizer of "
        "the match enters (not playing in it) is official at once (source official).",
    ),
)
class ReportViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    viewsets.GenericViewSet,
):
    serializer_class = ReportSerializer
    filterset_class = filters.ReportFilter
    ordering_fields = ["created_at", "id"]
    # A report may carry a whole .mat file for the engine to check (base.throttles).
    throttle_scopes = {"create": "reports"}

    def get_queryset(self) -> QuerySet[ResultReport]:
        responses = ReportResponse.objects.select_related("by").order_by("at", "id")
        return (
            ResultReport.objects.filter(match__in=queries.visible_matches(self.request.user))
            .exclude(match__in=visibility.hidden_matches(self.request.user))
            .select_related("reported_by", "match__player1", "match__player2")
            .prefetch_related(Prefetch("responses", queryset=responses))
            .order_by("-created_at", "-id")
        )

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        value = request.data.get("match") if hasattr(request.data, "get") else None
        match = (
            queries.visible_matches(request.user).filter(pk=value).first()
            if str(value).isascii() and str(value).isdigit()  # not "²", which int() refuses
            else None
        )
        if match is not None:
            _require(request, "match.report", match)
        return super().create(request, *args, **kwargs)

    def _answer(self, report: ResultReport) -> Response:
        report = self.get_queryset().get(pk=report.pk)
        return Response(self.get_serializer(report).data)

    @extend_schema(
        summary="Confirm a reported result (the opponent)",
        description="The opponent of the player who reported confirms.  When that opponent "
        "has no account (awaits_official), a club or federation official who manages them "
        "confirms instead, and the result is official at once.",
        request=None,
    )
    @action(detail=True, methods=["post"], filter_backends=[])
    def confirm(self, request: Request, pk: str | None = None) -> Response:
        report = self.get_object()
        with service_errors():
            services.confirm_report(report, by=request.user)
        return self._answer(report)

    @extend_schema(summary="Dispute a reported result (the opponent)", request=DisputeSerializer)
    @action(detail=True, methods=["post"], filter_backends=[])
    def dispute(self, request: Request, pk: str | None = None) -> Response:
        report = self.get_object()
        given = DisputeSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        with service_errors():
            services.dispute_report(report, by=request.user, reason=given.validated_data["reason"])
        return self._answer(report)

    @extend_schema(
        summary="Decide a disputed result (arbiters)",
        description="Uphold the report, or set the score; the decision is official.",
        request=DecideSerializer,
    )
    @action(detail=True, methods=["post"], filter_backends=[])
    def decide(self, request: Request, pk: str | None = None) -> Response:
        report = self.get_object()
        _require(request, "match.arbitrate", report.match)
        given = DecideSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        data = given.validated_data
        with service_errors():
            decision = services.decide_dispute(
                report,
                by=request.user,
                uphold=data["uphold"],
                reason=data["reason"],
                score1=data.get("score1"),
                score2=data.get("score2"),
            )
        return self._answer(decision)


def register(router: BaseRouter) -> None:
    """Add this app's viewsets to the project's API router."""
    router.register("matches", MatchViewSet, basename="match")
    router.register("reports", ReportViewSet, basename="report")
