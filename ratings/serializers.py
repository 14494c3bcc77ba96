"""Serializers of the ratings API (read only: lists are published by
ratings.services.publish_list, from the pages)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from clubs.models import Player
from ratings import queries
from ratings.models import RatingChange, RatingList, RatingListEntry, RatingPool


class PlayerBriefSerializer(serializers.ModelSerializer):
    class Meta:
        model = Player
        fields = ["id", "name_native", "name_latin"]


class RatingPoolSerializer(serializers.ModelSerializer):
    """A rating pool: one federation × discipline, rated by FIBS or Glicko-2."""

    federation = serializers.IntegerField(source="rated_discipline.federation_id")
    federation_slug = serializers.CharField(source="rated_discipline.federation.slug")
    federation_name = serializers.CharField(source="rated_discipline.federation.name")
    discipline = serializers.CharField(source="rated_discipline.discipline.code")
    discipline_name = serializers.CharField(source="rated_discipline.discipline.name")
    rating_system = serializers.CharField(source="rated_discipline.rating_system")
    initial_rating = serializers.FloatField(source="rated_discipline.initial_rating")
    latest_list = serializers.IntegerField(source="latest_list_id", allow_null=True)
    latest_list_date = serializers.DateField(allow_null=True)

    class Meta:
        model = RatingPool
        fields = [
            "id",
            "federation",
            "federation_slug",
            "federation_name",
            "discipline",
            "discipline_name",
            "rating_system",
            "initial_rating",
            "computed_at",
            "latest_list",
            "latest_list_date",
        ]
        read_only_fields = fields


class RatingListSerializer(serializers.ModelSerializer):
    """A published list (its entries: ``/api/rating-lists/{id}/``)."""

    entry_count = serializers.IntegerField()

    class Meta:
        model = RatingList
        fields = ["id", "pool", "date", "published_at", "entry_count"]
        read_only_fields = fields


class RatingListEntrySerializer(serializers.ModelSerializer):
    """One line of a list; ``change`` is against the previous published list
    (null for a player who was not on it); ``rd`` is null under FIBS."""

    player = PlayerBriefSerializer()

    class Meta:
        model = RatingListEntry
        fields = [
            "rank",
            "player",
            "rating",
            "experience",
            "rd",
            "matches",
            "provisional",
            "change",
        ]
        read_only_fields = fields


class RatingListEntryPageSerializer(serializers.Serializer):
    """One page of a list's entries (``?page=``)."""

    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = RatingListEntrySerializer(many=True)


class RatingListDetailSerializer(RatingListSerializer):
    entries = RatingListEntryPageSerializer()

    class Meta(RatingListSerializer.Meta):
        fields = [*RatingListSerializer.Meta.fields, "entries"]
        read_only_fields = fields


class RatingChangeSerializer(serializers.ModelSerializer):
    """One rating change: a rated match (FIBS) or a rating period (Glicko-2, where
    ``match`` is the player's last match of the period and ``matches`` their count)."""

    opponent = serializers.SerializerMethodField()
    result = serializers.SerializerMethodField()
    match_length = serializers.SerializerMethodField()
    change = serializers.SerializerMethodField()

    class Meta:
        model = RatingChange
        fields = [
            "pool",
            "played_at",
            "match",
            "opponent",
            "match_length",
            "result",
            "period",
            "matches",
            "rating_before",
            "rating_after",
            "change",
            "experience_before",
            "experience_after",
            "rd_before",
            "rd_after",
            "volatility_before",
            "volatility_after",
        ]
        read_only_fields = fields

    @extend_schema_field(PlayerBriefSerializer(allow_null=True))
    def get_opponent(self, change: RatingChange) -> Any:
        if change.matches != 1:
            return None
        opponent = queries.opponent(change)
        return None if opponent is None else PlayerBriefSerializer(opponent).data

    @extend_schema_field(
        {"type": "string", "enum": ["won", "lost"], "nullable": True},
    )
    def get_result(self, change: RatingChange) -> str | None:
        if getattr(change, "result_hidden", False):
            return None  # games.visibility: the reader may not see this result
        return queries.outcome(change) if change.matches == 1 else None

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_match_length(self, change: RatingChange) -> int | None:
        if change.matches != 1 or change.match is None:
            return None
        return int(change.match.length)

    @extend_schema_field(OpenApiTypes.DOUBLE)
    def get_change(self, change: RatingChange) -> float:
        return change.rating_after - change.rating_before
