"""REST API of the tournaments app: tournaments, entries, rounds, pairings, standings.

Everyone reads what is public (public tournaments past their draft, their
pairings where published, results outside silent rounds, published
standings); a tournament's managers and arbiters read everything of it.
Writes go through tournaments.services; the rule of each write is asked from
clubs.permissions first, so a refused write never reaches validation (HTTP
403); a service's ValidationError is an HTTP 400 saying what and where.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.core.exceptions import PermissionDenied
from django.db.models import Q, QuerySet
from django.http import Http404, HttpResponseBase
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.routers import BaseRouter
from rest_framework.utils.urls import replace_query_param

from base.httpcache import etag_response
from base.pagination import LAST_PAGE_NUMBER, PAGE_SCHEMA, page_of, page_parameters
from clubs import permissions
from clubs.models import Club, Federation, Player
from clubs.serializers import service_errors
from tournaments import brackets, filters, queries, services
from tournaments import permissions as tournament_permissions
from tournaments.formats import flights
from tournaments.models import Entry, Pairing, Round, StandingsSnapshot, Tournament
from tournaments.serializers import (
    BRACKET_COLUMNS,
    EditPairingsSerializer,
    EntrySerializer,
    ForfeitSerializer,
    PairingSerializer,
    PairRoundSerializer,
    RoundSerializer,
    SeedsSerializer,
    SilentSerializer,
    StandingsPageSerializer,
    StandingsSummarySerializer,
    TournamentSerializer,
    TournamentStateSerializer,
)
from tournaments.services import visibility as results_rule


def _require(request: Request, rule: str, obj: Any) -> None:
    if not permissions.can(request.user, rule, obj):
        raise PermissionDenied


def _payload_id(request: Request, name: str) -> int | None:
    value = request.data.get(name) if hasattr(request.data, "get") else None
    try:
        return int(value) if value not in (None, "") else None
    except (TypeError, ValueError):
        return None


def _tournament_asked(request: Request) -> Tournament | None:
    """The one tournament a list is narrowed to by its ``round`` or ``tournament``
    parameter (None: not narrowed to one, or no such tournament)."""
    params = request.query_params
    try:
        if params.get("round"):
            found = Tournament.objects.filter(rounds__pk=int(params["round"]))
        elif params.get("tournament"):
            found = Tournament.objects.filter(pk=int(params["tournament"]))
        else:
            return None
    except ValueError:
        return None
    return found.select_related("federation", "club").first()


def _visible(request: Request) -> QuerySet[Tournament]:
    return tournament_permissions.visible_tournaments(request.user)


def _standings_page(request: Request, snapshot: StandingsSnapshot) -> Response:
    """The snapshot with one page of its rows, narrowed by the rows' filters."""
    query = filters.StandingsRowsQuery(data=request.query_params)
    query.is_valid(raise_exception=True)
    data = StandingsSummarySerializer(snapshot).data
    data["rows"] = page_of(query.rows(snapshot.rows), request, list)
    return Response(data)


def _versioned(
    request: Request, tournament: Tournament, build: Callable[[], Response]
) -> HttpResponseBase:
    """``build()`` with an ETag of what it shows of the tournament: its public version,
    what this viewer may see of its results, the address (page, filters) and the format;
    a reload that still holds it gets 304 (base.httpcache)."""
    parts = (
        "api",
        tournament.pk,
        tournament.public_version,
        results_rule.viewer_key(request.user, tournament),
        request.get_full_path(),
        request.accepted_renderer.format,
    )
    return etag_response(request, parts, build)


STANDINGS_PAGE_PARAMETERS = [filters.StandingsRowsQuery, *page_parameters()]


class BracketPartQuery(serializers.Serializer):
    """``?part=`` of a bracket, checked before the bracket is read."""

    part = serializers.IntegerField(min_value=1, max_value=LAST_PAGE_NUMBER, required=False)


BRACKET_PART_HEADERS = [
    OpenApiParameter(
        name, kind, OpenApiParameter.HEADER, required=required, description=text, response=[200]
    )
    for name, kind, required, text in (
        ("Bracket-Part", OpenApiTypes.INT, True, "The part this answer is, from 1."),
        ("Bracket-Parts", OpenApiTypes.INT, True, "How many parts there are (1: whole)."),
        ("Bracket-Section", OpenApiTypes.STR, False, "The section this answer is, if one."),
        ("Bracket-Sections", OpenApiTypes.STR, False, "The flight's sections, comma-separated."),
        ("Link", OpenApiTypes.STR, False, 'The next and previous parts (rel="next", "prev").'),
    )
]


def _mark_bracket_part(
    response: Response,
    request: Request,
    part: int,
    parts: int,
    section: str | None,
    sections: list[str],
) -> None:
    """Headers saying which part of the bracket the answer is and how to reach the
    others: the answer's body keeps the shape of a whole bracket (a list of columns),
    so a client that never asks for parts reads a small bracket as before."""
    response["Bracket-Part"] = str(part)
    response["Bracket-Parts"] = str(parts)
    if section is not None:
        response["Bracket-Section"] = section
    if sections:
        response["Bracket-Sections"] = ", ".join(sections)
    address = request.build_absolute_uri()
    links = []
    if part < parts:
        links.append(f'<{replace_query_param(address, "part", part + 1)}>; rel="next"')
    if part > 1:
        links.append(f'<{replace_query_param(address, "part", part - 1)}>; rel="prev"')
    if links:
        response["Link"] = ", ".join(links)


@extend_schema_view(
    list=extend_schema(
        summary="Tournaments",
        description="Public tournaments past their draft, and those you run.",
    ),
    create=extend_schema(
        summary="Create a tournament",
        description="Federation admins for their federation, club admins for their club.",
    ),
    update=extend_schema(summary="Change a tournament's settings (its managers)"),
    partial_update=extend_schema(summary="Change some settings (its managers)"),
)
class TournamentViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    viewsets.GenericViewSet,
):
    serializer_class = TournamentSerializer
    filterset_class = filters.TournamentFilter
    search_fields = ["name"]
    ordering_fields = ["starts_on", "name", "id"]

    def get_queryset(self) -> QuerySet[Tournament]:
        return queries.with_joins(_visible(self.request)).order_by("-starts_on", "-id")

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        club_id, federation_id = _payload_id(request, "club"), _payload_id(request, "federation")
        scope: Any = None
        if club_id is not None:
            scope = Club.objects.select_related("federation").filter(pk=club_id).first()
        elif federation_id is not None:
            scope = Federation.objects.filter(pk=federation_id).first()
        if scope is not None:
            _require(request, "tournament.create", scope)
        return super().create(request, *args, **kwargs)

    def update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        _require(request, "tournament.manage", self.get_object())
        return super().update(request, *args, **kwargs)

    def _managed(self) -> Tournament:
        tournament = self.get_object()
        _require(self.request, "tournament.manage", tournament)
        return tournament

    def _answer(self, tournament: Tournament) -> Response:
        tournament = self.get_queryset().get(pk=tournament.pk)
        return Response(self.get_serializer(tournament).data)

    @extend_schema(
        summary="Change the state",
        description="draft, registration, check_in (and back); running starts the tournament, "
        "finished finishes it.",
        request=TournamentStateSerializer,
        responses=TournamentSerializer,
    )
    @action(detail=True, methods=["post"], filter_backends=[])
    def state(self, request: Request, pk: str | None = None) -> Response:
        tournament = self._managed()
        given = TournamentStateSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        with service_errors():
            services.set_state(tournament, given.validated_data["state"], by=request.user)
        return self._answer(tournament)

    @extend_schema(
        summary="Start the tournament",
        description="Entries not checked in are withdrawn (when check-in was used); seeds are fixed.",
        request=None,
        responses=TournamentSerializer,
    )
    @action(detail=True, methods=["post"], filter_backends=[])
    def start(self, request: Request, pk: str | None = None) -> Response:
        tournament = self._managed()
        with service_errors():
            services.start_tournament(tournament, by=request.user)
        return self._answer(tournament)

    @extend_schema(summary="Finish the tournament", request=None, responses=TournamentSerializer)
    @action(detail=True, methods=["post"], filter_backends=[])
    def finish(self, request: Request, pk: str | None = None) -> Response:
        tournament = self._managed()
        with service_errors():
            services.finish_tournament(tournament, by=request.user)
        return self._answer(tournament)

    @extend_schema(
        summary="Pair the next round of a flight",
        description="Refused while the flight's previous round is open.",
        request=PairRoundSerializer,
        responses={201: RoundSerializer},
    )
    @action(detail=True, methods=["post"], filter_backends=[])
    def pair(self, request: Request, pk: str | None = None) -> Response:
        tournament = self._managed()
        given = PairRoundSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        with service_errors():
            rnd = services.pair_next_round(tournament, by=request.user, **given.validated_data)
        return Response(RoundSerializer(rnd).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Seed the entries",
        description="By hand (entry id -> seed) or, without seeds, by rating.",
        request=SeedsSerializer,
        responses=EntrySerializer(many=True),
    )
    # A write answers with every entry it seeded, as one list (no pages to come back for).
    @action(detail=True, methods=["post"], filter_backends=[], pagination_class=None)
    def seed(self, request: Request, pk: str | None = None) -> Response:
        tournament = self._managed()
        given = SeedsSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        with service_errors():
            entries = services.seed_entries(
                tournament,
                by=request.user,
                # Keys are entry ids already (SeedsSerializer checks and converts them).
                seeds=given.validated_data.get("seeds"),
            )
        return Response(EntrySerializer(entries, many=True, context={"request": request}).data)

    @extend_schema(
        summary="Enter the qualifiers",
        description="The top places of the tournament this one qualifies from, seeded by place.",
        request=None,
        responses=EntrySerializer(many=True),
    )
    @action(detail=True, methods=["post"], filter_backends=[], pagination_class=None)
    def qualifiers(self, request: Request, pk: str | None = None) -> Response:
        tournament = self._managed()
        with service_errors():
            entries = services.enter_qualifiers(tournament, by=request.user)
        return Response(EntrySerializer(entries, many=True, context={"request": request}).data)

    @extend_schema(
        summary="Latest standings",
        description="The latest published standings (managers: the latest, published or not), "
        "with a page of their rows, best first: each row as in GET /api/standings/{id}/ "
        "(place, entry, player, name, score, tie-break values, wins, losses, byes, forfeits, "
        "withdrawn, flight, group).  Narrow the rows to a flight, a player or an entry.",
        parameters=STANDINGS_PAGE_PARAMETERS,
        responses=StandingsPageSerializer,
    )
    @action(detail=True, methods=["get"], filter_backends=[])
    def standings(self, request: Request, pk: str | None = None) -> Response:
        tournament = self.get_object()
        early = results_rule.sees_unpublished_standings(request.user, tournament)
        snapshot = queries.latest_standings(tournament, published_only=not early)
        if snapshot is None:
            raise Http404
        return _versioned(request, tournament, lambda: _standings_page(request, snapshot))

    @extend_schema(
        summary="A flight's bracket, for drawing",
        description="A list of columns (rounds in playing order), each a list of matches top "
        "to bottom: slot, players (name, seed, bye), score, winner, feeds_from, winner_to, "
        "loser_to.  Empty for formats without a bracket.  ``section`` keeps one section of a "
        "bracket drawn in sections (a double elimination's W, L and GF); a section the "
        "bracket does not have is 404.\n\n"
        f"The answer holds {brackets.SPLIT_MATCHES} matches at most, so its size does not grow "
        "with the field.  A flight with more matches comes a section at a time (without "
        "``section``: its first section), and a section with more, a part at a time: "
        "``part`` N (from 1) is the subtree under a run of the section's first-round "
        "matches, and the last part holds the last rounds (the final).  Without ``part``, "
        "part 1.  Every answer says where it stands in headers: ``Bracket-Part`` and "
        "``Bracket-Parts`` (how many parts the answer's section or flight has, 1 when it "
        "comes whole), ``Bracket-Section`` (when the answer is one section) and "
        "``Bracket-Sections`` (the flight's sections, comma-separated), with a ``Link`` "
        'header to the next and previous parts (rel="next", rel="prev").  A part past the '
        "last is 404; a part that is no whole number from 1 is 400.\n\n"
        "Answers carry an ETag of the tournament's version: a reload that still holds it is 304.",
        parameters=[
            OpenApiParameter("flight", OpenApiTypes.STR, default=flights.MAIN),
            OpenApiParameter("section", OpenApiTypes.STR, required=False),
            OpenApiParameter(
                "part",
                PAGE_SCHEMA,
                OpenApiParameter.QUERY,
                description="A part of the section, from 1 (the last holds the final).",
            ),
            *BRACKET_PART_HEADERS,
        ],
        responses=BRACKET_COLUMNS,
    )
    @action(detail=True, methods=["get"], filter_backends=[], pagination_class=None)
    def bracket(self, request: Request, pk: str | None = None) -> HttpResponseBase:
        tournament = self.get_object()
        flight = request.query_params.get("flight", flights.MAIN)
        section = request.query_params.get("section")
        query = BracketPartQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        part = query.validated_data.get("part", 1)

        def build() -> Response:
            columns = queries.bracket_view(tournament, flight)
            pairings = Pairing.objects.filter(round__tournament=tournament).select_related(
                "round__tournament", "entry1__player", "entry2__player", "match"
            )
            # Hidden before the split, so no part tells what the whole would not.
            hidden = results_rule.hidden_bracket_slots(request.user, tournament, columns, pairings)
            results_rule.hide_bracket_results(columns, hidden)
            sections = brackets.by_section(columns)
            if section is not None and section not in sections:
                raise NotFound(_("This bracket has no such section."))
            shown = section
            if shown is None and brackets.match_count(columns) > brackets.SPLIT_MATCHES:
                shown = next(iter(sections))
            parts = (
                [columns]
                if shown is None
                else brackets.section_parts(sections[shown], brackets.SPLIT_MATCHES)
            )
            if part > len(parts):
                raise NotFound(
                    _("There is no part %(part)d: the parts are 1 to %(last)d.")
                    % {"part": part, "last": len(parts)}
                )
            response = Response(parts[part - 1])
            _mark_bracket_part(response, request, part, len(parts), shown, list(sections))
            return response

        return _versioned(request, tournament, build)


@extend_schema_view(
    list=extend_schema(summary="Entries", description="Filter by tournament, player, status."),
    create=extend_schema(
        summary="Enter a player",
        description="Managers enter anyone (late entries while a Swiss or a cup runs); "
        "a player enters themself while registration is open.",
    ),
    destroy=extend_schema(summary="Remove an entry (before the tournament runs)"),
)
class EntryViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    serializer_class = EntrySerializer
    filterset_class = filters.EntryFilter
    ordering_fields = ["seed", "id"]

    def get_queryset(self) -> QuerySet[Entry]:
        return (
            Entry.objects.filter(tournament__in=_visible(self.request))
            .select_related("player", "tournament")
            .order_by("tournament_id", "seed", "id")
        )

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        tournament_id, player_id = (
            _payload_id(request, "tournament"),
            _payload_id(request, "player"),
        )
        tournament = _visible(request).filter(pk=tournament_id).first() if tournament_id else None
        player = Player.objects.filter(pk=player_id).first() if player_id else None
        if tournament is not None and player is not None:
            _require(request, "tournament.enter", (tournament, player))
        return super().create(request, *args, **kwargs)

    def perform_destroy(self, instance: Entry) -> None:
        _require(self.request, "entry.change", instance)
        with service_errors():
            services.remove_entry(instance, by=self.request.user)

    def _act(self, service: Any) -> Response:
        entry = self.get_object()
        _require(self.request, "entry.change", entry)
        with service_errors():
            service(entry, by=self.request.user)
        entry = self.get_queryset().get(pk=entry.pk)
        return Response(self.get_serializer(entry).data)

    @extend_schema(summary="Check in (the player, or a manager)", request=None)
    @action(detail=True, methods=["post"], filter_backends=[], url_path="check-in")
    def check_in(self, request: Request, pk: str | None = None) -> Response:
        return self._act(services.check_in)

    @extend_schema(
        summary="Withdraw (the player, or a manager)",
        description="Not paired from the next round; a match still to play is lost by forfeit.",
        request=None,
    )
    @action(detail=True, methods=["post"], filter_backends=[])
    def withdraw(self, request: Request, pk: str | None = None) -> Response:
        return self._act(services.withdraw)

    @extend_schema(
        summary="Undo a withdrawal (a manager)",
        description="Allowed until a round is paired after the withdrawal: the forfeits it "
        "recorded are taken back.  Refused (400, saying why) once the rules no longer allow it.",
        request=None,
    )
    @action(detail=True, methods=["post"], filter_backends=[])
    def reinstate(self, request: Request, pk: str | None = None) -> Response:
        entry = self.get_object()
        _require(request, "tournament.manage", entry.tournament)
        with service_errors():
            services.reinstate(entry, by=request.user)
        entry = self.get_queryset().get(pk=entry.pk)
        return Response(self.get_serializer(entry).data)


@extend_schema_view(
    list=extend_schema(summary="Rounds", description="Filter by tournament, flight, state."),
)
class RoundViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    serializer_class = RoundSerializer
    filterset_class = filters.RoundFilter
    ordering_fields = ["number", "id"]

    def get_queryset(self) -> QuerySet[Round]:
        return Round.objects.filter(tournament__in=_visible(self.request)).order_by(
            "tournament_id", "number", "flight"
        )

    def _managed(self) -> Round:
        rnd = self.get_object()
        _require(self.request, "tournament.manage", rnd.tournament)
        return rnd

    def _answer(self, rnd: Round) -> Response:
        return Response(self.get_serializer(Round.objects.get(pk=rnd.pk)).data)

    @extend_schema(
        summary="Start the round",
        description="A match per pairing, with the round's length and the tournament's clock.",
        request=None,
    )
    @action(detail=True, methods=["post"], filter_backends=[])
    def start(self, request: Request, pk: str | None = None) -> Response:
        rnd = self._managed()
        with service_errors():
            services.start_round(rnd, by=request.user)
        return self._answer(rnd)

    @extend_schema(
        summary="Close the round",
        description="Refused (400, listing the tables) while a result is not confirmed.",
        request=None,
    )
    @action(detail=True, methods=["post"], filter_backends=[])
    def close(self, request: Request, pk: str | None = None) -> Response:
        rnd = self._managed()
        with service_errors():
            services.close_round(rnd, by=request.user)
        return self._answer(rnd)

    @extend_schema(
        summary="Undo the pairing (before the round starts)",
        description="The round and its pairings are deleted (204), to be paired again.  "
        "Refused (400) once it has started, a match made or a result entered.",
        request=None,
        responses={204: None},
    )
    @action(detail=True, methods=["post"], filter_backends=[])
    def unpair(self, request: Request, pk: str | None = None) -> Response:
        rnd = self._managed()
        with service_errors():
            services.unpair_round(rnd, by=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(summary="Make the round silent, or release it", request=SilentSerializer)
    @action(detail=True, methods=["post"], filter_backends=[])
    def silent(self, request: Request, pk: str | None = None) -> Response:
        rnd = self._managed()
        given = SilentSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        with service_errors():
            services.set_silent(rnd, given.validated_data["silent"], by=request.user)
        return self._answer(rnd)

    @extend_schema(
        summary="Edit the pairings (before the round starts)",
        description="Every player of the round exactly once; none added; brackets cannot be edited.",
        request=EditPairingsSerializer,
        responses=PairingSerializer(many=True),
    )
    # A write answers with the round it edited, as one list (no pages to come back for).
    @action(detail=True, methods=["post"], filter_backends=[], pagination_class=None)
    def pairings(self, request: Request, pk: str | None = None) -> Response:
        rnd = self._managed()
        given = EditPairingsSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        pairs = [(p[0], p[1] if len(p) > 1 else None) for p in given.validated_data["pairs"]]
        with service_errors():
            services.edit_pairings(rnd, pairs, by=request.user)  # type: ignore[arg-type]
        rows = queries.pairings_with_joins(Pairing.objects.filter(round=rnd)).select_related(
            "round__tournament"
        )
        return Response(PairingSerializer(rows, many=True, context={"request": request}).data)


@extend_schema_view(
    list=extend_schema(
        summary="Pairings",
        description="Filter by tournament, round, flight, entry.  Results are null where "
        "they are not public (silent rounds, unpublished results).",
    ),
)
class PairingViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    serializer_class = PairingSerializer
    filterset_class = filters.PairingFilter
    ordering_fields = ["table", "id"]

    def get_queryset(self) -> QuerySet[Pairing]:
        user = self.request.user
        shown = Q(
            round__tournament__publish_pairings=True
        ) | tournament_permissions.staff_tournaments_q(user, "round__tournament__")
        return (
            Pairing.objects.filter(round__tournament__in=_visible(self.request))
            .filter(shown)
            .select_related("round__tournament", "entry1__player", "entry2__player", "match")
            .order_by("round__tournament_id", "round__number", "round__flight", "table")
        )

    def list(self, request: Request, *args: Any, **kwargs: Any) -> HttpResponseBase:
        """The pairings of one tournament (asked by ``round`` or ``tournament``) carry its
        version as an ETag; a list across tournaments has no one version."""
        tournament = _tournament_asked(request)
        if tournament is None:
            return super().list(request, *args, **kwargs)
        listed = super().list
        return _versioned(request, tournament, lambda: listed(request, *args, **kwargs))

    @extend_schema(
        summary="Record a forfeit (managers)",
        description="The winner (an entry id of the pairing) wins by forfeit; the match gets "
        "an override marked as a forfeit.  A null winner: both forfeit (a loss for each, the "
        "match cancelled); refused in a knock-out bracket.",
        request=ForfeitSerializer,
    )
    @action(detail=True, methods=["post"], filter_backends=[])
    def forfeit(self, request: Request, pk: str | None = None) -> Response:
        pairing = self.get_object()
        _require(request, "tournament.manage", pairing.round.tournament)
        given = ForfeitSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        with service_errors():
            services.forfeit(pairing, by=request.user, **given.validated_data)
        return Response(self.get_serializer(self.get_queryset().get(pk=pairing.pk)).data)


@extend_schema_view(
    list=extend_schema(
        summary="Standings snapshots",
        description="One per round; published ones for everyone, all of them for the managers.  "
        "Without their rows: GET /api/standings/{id}/ pages them.",
    ),
    retrieve=extend_schema(
        summary="A standings snapshot with a page of its rows",
        description="Rows best first: place, entry, player, name, score, tie-break values in "
        "the listed order, wins, losses, byes, forfeits, withdrawn, flight and group.  Narrow "
        "them to a flight, a player or an entry.",
        parameters=STANDINGS_PAGE_PARAMETERS,
        responses=StandingsPageSerializer,
    ),
)
class StandingsViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    serializer_class = StandingsSummarySerializer
    filterset_class = filters.StandingsFilter
    ordering_fields = ["after_round", "id"]

    def get_queryset(self) -> QuerySet[StandingsSnapshot]:
        snapshots = (
            StandingsSnapshot.objects.filter(tournament__in=_visible(self.request))
            .filter(results_rule.shown_standings_q(self.request.user))
            .order_by("tournament_id", "-after_round")
        )
        # A list reads no rows: a 1,000-player table in each snapshot would make it huge.
        return snapshots.defer("rows") if self.action == "list" else snapshots

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> HttpResponseBase:
        snapshot = self.get_object()
        return _versioned(request, snapshot.tournament, lambda: _standings_page(request, snapshot))

    @extend_schema(
        summary="Publish the standings (managers)",
        description="Also releases the silent rounds they cover.",
        request=None,
    )
    @action(detail=True, methods=["post"], filter_backends=[])
    def publish(self, request: Request, pk: str | None = None) -> Response:
        snapshot = self.get_object()
        _require(request, "tournament.manage", snapshot.tournament)
        with service_errors():
            services.publish_standings(snapshot, by=request.user)
        return Response(self.get_serializer(StandingsSnapshot.objects.get(pk=snapshot.pk)).data)


def register(router: BaseRouter) -> None:
    """Add this app's viewsets to the project's API router."""
    router.register("tournaments", TournamentViewSet, basename="tournament")
    router.register("entries", EntryViewSet, basename="entry")
    router.register("rounds", RoundViewSet, basename="round")
    router.register("pairings", PairingViewSet, basename="pairing")
    router.register("standings", StandingsViewSet, basename="standings")
