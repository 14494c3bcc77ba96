"""REST API of the ratings app: pools, published lists with their entries, and
players' rating histories.  Read only, for everyone: anonymous visitors read
the pools of public federations, signed-in users also those of the
federations they may see (clubs.permissions.visible_federations).  Every
endpoint is a fixed number of queries whatever the number of rows.

    /api/rating-pools/                      pools (?federation=, ?discipline=)
    /api/rating-pools/{id}/                 one pool
    /api/rating-pools/{id}/lists/           its published lists, the latest first
    /api/rating-lists/                      published lists (?pool=, ?date_from=...)
    /api/rating-lists/{id}/                 one list with a page of its entries
                                            (?page=, ?page_size=, ?player=, ?name=)
    /api/players/{id}/rating-history/       a player's changes, oldest first (?pool=)

Every list is paged the same way (base.pagination).
"""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Q, QuerySet
from django.http import Http404
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import mixins, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.routers import BaseRouter

from base.pagination import page_of, page_parameters
from clubs import permissions
from clubs.models import Player
from games import visibility
from ratings import queries
from ratings.filters import (
    ListEntriesQuery,
    RatingHistoryFilter,
    RatingListFilter,
    RatingPoolFilter,
)
from ratings.models import RatingChange, RatingList, RatingPool
from ratings.serializers import (
    RatingChangeSerializer,
    RatingListDetailSerializer,
    RatingListEntrySerializer,
    RatingListSerializer,
    RatingPoolSerializer,
)


def _published_lists(user: Any) -> QuerySet[RatingList]:
    return (
        RatingList.objects.filter(published_at__isnull=False, pool__in=queries.visible_pools(user))
        .annotate(entry_count=Count("entries"))
        .order_by("-date", "id")
    )


@extend_schema_view(
    list=extend_schema(
        summary="Rating pools",
        description="One pool per federation and rated discipline, with its latest published list.",
    ),
    retrieve=extend_schema(summary="A rating pool"),
)
class RatingPoolViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = RatingPoolSerializer
    filter_backends = [DjangoFilterBackend]
    filterset_class = RatingPoolFilter

    def get_queryset(self) -> QuerySet[RatingPool]:
        pools = queries.with_latest_list(queries.visible_pools(self.request.user))
        return pools.order_by(
            "rated_discipline__federation__name", "rated_discipline__discipline__name", "id"
        )

    @extend_schema(
        summary="A pool's published lists",
        description="The latest first; the entries of each are at /api/rating-lists/{id}/.",
        responses=RatingListSerializer(many=True),
        filters=False,
    )
    @action(detail=True, methods=["get"], url_path="lists", filter_backends=[])
    def lists(self, request: Request, pk: str | None = None) -> Response:
        pool = self.get_object()
        lists = _published_lists(request.user).filter(pool=pool)
        page = self.paginate_queryset(lists)
        return self.get_paginated_response(RatingListSerializer(page, many=True).data)


@extend_schema_view(
    list=extend_schema(summary="Published rating lists", description="The latest first."),
)
class RatingListViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = RatingListSerializer
    filter_backends = [DjangoFilterBackend]
    filterset_class = RatingListFilter

    def get_queryset(self) -> QuerySet[RatingList]:
        return _published_lists(self.request.user)

    @extend_schema(
        summary="A published list with its entries",
        description="The entries are paged like every list here (?page=2 for the next "
        "page), best first, and may be narrowed to a player or a name; ranks stay the list's.",
        parameters=[ListEntriesQuery, *page_parameters()],
        responses=RatingListDetailSerializer,
        filters=False,
    )
    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        query = ListEntriesQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        rating_list = self.get_object()
        entries = query.entries(queries.list_entries(rating_list))
        data = RatingListSerializer(rating_list, context=self.get_serializer_context()).data
        data["entries"] = page_of(
            entries, request, lambda page: RatingListEntrySerializer(page, many=True).data
        )
        return Response(data)


@extend_schema_view(
    list=extend_schema(
        summary="A player's rating history",
        description=(
            "The player's rating changes, oldest first, in the pools you may read: "
            "one per rated match under FIBS, one per rating period under Glicko-2."
        ),
    ),
)
class RatingHistoryViewSet(mixins.ListModelMixin, viewsets.GenericViewSet):
    serializer_class = RatingChangeSerializer
    filter_backends = [DjangoFilterBackend]
    filterset_class = RatingHistoryFilter

    def get_queryset(self) -> QuerySet[RatingChange]:
        user = self.request.user
        if getattr(self, "swagger_fake_view", False):
            return RatingChange.objects.none()
        player_id = self.kwargs["player_pk"]
        visible = Player.objects.filter(
            Q(federation__isnull=True) | Q(federation__in=permissions.visible_federations(user)),
            pk=player_id,
        )
        if not visible.exists():
            raise Http404("No such player.")
        return (
            RatingChange.objects.filter(player_id=player_id, pool__in=queries.visible_pools(user))
            .select_related("match", "match__player1", "match__player2")
            # A result the reader may not see (games.visibility): the row keeps its
            # rating change, not the outcome.
            .annotate(result_hidden=visibility.hidden_flag(user, "match_id"))
            .order_by("played_at", "match_id", "pool_id", "pk")
        )


def register(router: BaseRouter) -> None:
    """Add this app's viewsets to the project's API router."""
    router.register("rating-pools", RatingPoolViewSet, basename="rating-pool")
    router.register("rating-lists", RatingListViewSet, basename="rating-list")
    router.register(
        r"players/(?P<player_pk>[0-9]+)/rating-history",
        RatingHistoryViewSet,
        basename="player-rating-history",
    )
