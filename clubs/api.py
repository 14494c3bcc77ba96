"""REST API of the clubs app: federations, clubs, players and memberships.

Everyone reads what they may see (anonymous visitors: public federations
only); writes go through clubs.services, and ``RolePermission`` asks
clubs.permissions first so a refused write never reaches validation.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import mixins, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.routers import BaseRouter

from clubs import filters, permissions, queries, services
from clubs.models import Club, Federation, Membership, Player
from clubs.serializers import (
    ClubSerializer,
    FederationSerializer,
    MembershipEndSerializer,
    MembershipSerializer,
    PlayerSerializer,
    service_errors,
)


def _payload_id(request: Request, name: str) -> int | None:
    value = request.data.get(name) if hasattr(request.data, "get") else None
    try:
        return int(value) if value not in (None, "") else None
    except (TypeError, ValueError):
        return None


class RolePermission(BasePermission):
    """Reads are open (querysets limit what is seen); writes ask clubs.permissions.

    A view names the rule of each write action in ``object_rules`` (checked
    against ``rule_target(obj)``) and, for creation, gives the rule and the
    parent scope taken from the payload with ``create_rule(request)``.
    """

    def has_permission(self, request: Request, view: Any) -> bool:
        if request.method in SAFE_METHODS:
            return True
        user = request.user
        if not (user and user.is_authenticated):
            return False
        if view.action is None:  # a method the endpoint does not offer: HTTP 405
            return True
        if view.action == "create":
            rule = view.create_rule(request)
            # An unknown or invisible parent is left to validation (HTTP 400).
            return rule is None or permissions.can(user, rule[0], rule[1])
        return view.action in view.object_rules

    def has_object_permission(self, request: Request, view: Any, obj: Any) -> bool:
        if request.method in SAFE_METHODS:
            return True
        rule = view.object_rules.get(view.action)
        return rule is not None and permissions.can(request.user, rule, view.rule_target(obj))


class ServiceViewSet(viewsets.GenericViewSet):
    permission_classes = [RolePermission]
    object_rules: dict[str, str] = {}

    def create_rule(self, request: Request) -> tuple[str, Any] | None:
        return None

    def rule_target(self, obj: Any) -> Any:
        return obj

    def visible_federations(self) -> QuerySet[Federation]:
        return permissions.visible_federations(self.request.user)


@extend_schema_view(
    list=extend_schema(summary="Federations", description="Public ones for anonymous visitors."),
    create=extend_schema(summary="Create a federation (site admins)"),
)
class FederationViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    mixins.DestroyModelMixin,
    ServiceViewSet,
):
    serializer_class = FederationSerializer
    filterset_class = filters.FederationFilter
    search_fields = ["name", "short_name"]
    ordering_fields = ["name", "id"]
    object_rules = {
        "update": "federation.change",
        "partial_update": "federation.change",
        "destroy": "federation.delete",
    }

    def get_queryset(self) -> QuerySet[Federation]:
        return self.visible_federations().prefetch_related("disciplines").order_by("name", "id")

    def create_rule(self, request: Request) -> tuple[str, Any] | None:
        return ("federation.create", None)

    def perform_destroy(self, instance: Federation) -> None:
        with service_errors():
            services.delete_federation(instance, by=self.request.user)


@extend_schema_view(
    create=extend_schema(summary="Create a club (federation admins)"),
    destroy=extend_schema(summary="Delete a club that has no history"),
)
class ClubViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    mixins.DestroyModelMixin,
    ServiceViewSet,
):
    serializer_class = ClubSerializer
    filterset_class = filters.ClubFilter
    search_fields = ["name", "city"]
    ordering_fields = ["name", "city", "id", "member_count"]
    object_rules = {
        "update": "club.change",
        "partial_update": "club.change",
        "destroy": "club.delete",
    }

    def get_queryset(self) -> QuerySet[Club]:
        clubs = Club.objects.filter(federation__in=self.visible_federations())
        return queries.with_member_counts(clubs).order_by("name", "id")

    def create_rule(self, request: Request) -> tuple[str, Any] | None:
        federation = self.visible_federations().filter(pk=_payload_id(request, "federation"))
        found = federation.first()
        return ("club.create", found) if found is not None else None

    def perform_destroy(self, instance: Club) -> None:
        with service_errors():
            services.delete_club(instance, by=self.request.user)


@extend_schema_view(
    list=extend_schema(summary="Players", description="Active players (merged ones are left out)."),
    create=extend_schema(summary="Create a player (federation or club admins)"),
    destroy=extend_schema(summary="Delete a player who has no history"),
)
class PlayerViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    mixins.DestroyModelMixin,
    ServiceViewSet,
):
    serializer_class = PlayerSerializer
    filterset_class = filters.PlayerFilter
    search_fields = ["name_native", "name_latin"]
    ordering_fields = ["name_latin", "name_native", "id"]
    object_rules = {
        "update": "player.change",
        "partial_update": "player.change",
        "destroy": "player.delete",
    }

    def get_queryset(self) -> QuerySet[Player]:
        players = Player.objects.filter(
            Q(federation__isnull=True) | Q(federation__in=self.visible_federations())
        ).select_related("federation")
        if self.action == "list":
            players = players.filter(merged_into__isnull=True)
        return players.order_by("name_latin", "id")

    def create_rule(self, request: Request) -> tuple[str, Any] | None:
        visible = self.visible_federations()
        club_id = _payload_id(request, "club")
        if club_id is not None:
            club = Club.objects.filter(federation__in=visible, pk=club_id).first()
            return ("player.create", club) if club is not None else None
        federation_id = _payload_id(request, "federation")
        if federation_id is not None:
            federation = visible.filter(pk=federation_id).first()
            return ("player.create", federation) if federation is not None else None
        return ("federation.create", None)  # a player of no federation: site admins

    def perform_destroy(self, instance: Player) -> None:
        with service_errors():
            services.delete_player(instance, by=self.request.user)


@extend_schema_view(
    create=extend_schema(summary="Add a membership (club or federation admins)"),
    update=extend_schema(summary="Correct a membership's dates"),
    partial_update=extend_schema(summary="Correct a membership's dates"),
    destroy=extend_schema(summary="Remove a membership entered by mistake"),
)
class MembershipViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    mixins.DestroyModelMixin,
    ServiceViewSet,
):
    serializer_class = MembershipSerializer
    filterset_class = filters.MembershipFilter
    ordering_fields = ["start", "end", "id"]
    object_rules = {
        "update": "membership.change",
        "partial_update": "membership.change",
        "destroy": "membership.change",
        "end": "membership.change",
    }

    def get_queryset(self) -> QuerySet[Membership]:
        memberships = Membership.objects.filter(club__federation__in=self.visible_federations())
        if self.action != "list":
            memberships = memberships.select_related("club__federation")
        return memberships.order_by("-start", "id")

    def rule_target(self, obj: Membership) -> Club:
        return obj.club

    def create_rule(self, request: Request) -> tuple[str, Any] | None:
        club = Club.objects.filter(
            federation__in=self.visible_federations(), pk=_payload_id(request, "club")
        ).first()
        return ("membership.change", club) if club is not None else None

    def perform_destroy(self, instance: Membership) -> None:
        with service_errors():
            services.delete_membership(instance, by=self.request.user)

    @extend_schema(
        summary="End a membership",
        request=MembershipEndSerializer,
        responses=MembershipSerializer,
    )
    @action(detail=True, methods=["post"])
    def end(self, request: Request, pk: str | None = None) -> Response:
        membership = self.get_object()
        form = MembershipEndSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        with service_errors():
            services.end_membership(membership, by=request.user, end=form.validated_data["end"])
        return Response(self.get_serializer(membership).data)


def register(router: BaseRouter) -> None:
    """Add this app's viewsets to the project's API router."""
    router.register("federations", FederationViewSet, basename="federation")
    router.register("clubs", ClubViewSet, basename="club")
    router.register("players", PlayerViewSet, basename="player")
    router.register("memberships", MembershipViewSet, basename="membership")
