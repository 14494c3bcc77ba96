"""Serializers of the clubs API.  They validate and shape data; every write is
handed to clubs.services (which checks permissions and writes the audit log)."""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.core.exceptions import NON_FIELD_ERRORS
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django_countries.serializers import CountryFieldMixin
from rest_framework import exceptions, serializers, status
from rest_framework.settings import api_settings

from base import locking
from base.fields import BoundedIntegers
from clubs import permissions, services
from clubs.models import Club, Discipline, Federation, Membership, Player


class ServiceBusy(exceptions.APIException):
    """The rows a service needs stayed locked by another request (base.locking): 503."""

    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_code = "busy"


@contextmanager
def service_errors() -> Iterator[None]:
    """A service's ValidationError becomes an HTTP 400 with the errors by field; rows
    locked by someone else too long, a 503 saying to try again."""
    try:
        yield
    except locking.Busy as error:
        raise ServiceBusy(" ".join(error.messages)) from error
    except DjangoValidationError as error:
        if hasattr(error, "error_dict"):
            detail: Any = {
                (
                    api_settings.NON_FIELD_ERRORS_KEY if field == NON_FIELD_ERRORS else field
                ): messages
                for field, messages in error.message_dict.items()
            }
        else:
            detail = {api_settings.NON_FIELD_ERRORS_KEY: error.messages}
        raise serializers.ValidationError(detail) from error


class ServiceSerializer(BoundedIntegers, serializers.ModelSerializer):
    # Base: knows the acting user and limits related choices to what they may
    # read; an integer field accepts only what its column holds.  Subclasses set ``validators = []`` in Meta: uniqueness is checked by
    # the services (Model.full_clean), once, in one place.

    @property
    def acting_user(self) -> Any:
        request = self.context.get("request")
        return getattr(request, "user", None)

    def visible_federations(self) -> Any:
        return permissions.visible_federations(self.acting_user)


class DisciplineBriefSerializer(serializers.ModelSerializer):
    """A discipline: what is played and whether with the cube, and the variant's
    options (Soldiers' army and placement; empty: the variant's defaults)."""

    class Meta:
        model = Discipline
        fields = ["code", "name", "variant", "cube", "variant_options"]


class FederationSerializer(CountryFieldMixin, ServiceSerializer):
    """A federation, with the disciplines it rates."""

    disciplines = DisciplineBriefSerializer(many=True, read_only=True)

    class Meta:
        model = Federation
        fields = [
            "id",
            "name",
            "short_name",
            "slug",
            "country",
            "website",
            "email",
            "is_public",
            "show_birth_year",
            "show_membership_numbers",
            "disciplines",
        ]
        extra_kwargs = {
            "slug": {"required": False, "help_text": _("Made from the name when left out.")}
        }
        validators: list[Any] = []

    def create(self, validated_data: dict[str, Any]) -> Federation:
        with service_errors():
            return services.create_federation(by=self.acting_user, **validated_data)

    def update(self, instance: Federation, validated_data: dict[str, Any]) -> Federation:
        with service_errors():
            return services.update_federation(instance, by=self.acting_user, **validated_data)


class ClubSerializer(ServiceSerializer):
    """A club of a federation."""

    federation = serializers.PrimaryKeyRelatedField(queryset=Federation.objects.none())
    member_count = serializers.IntegerField(
        read_only=True, help_text=_("Current members of the club.")
    )

    class Meta:
        model = Club
        fields = [
            "id",
            "federation",
            "name",
            "slug",
            "city",
            "address",
            "email",
            "phone",
            "website",
            "is_active",
            "member_count",
        ]
        extra_kwargs = {
            "slug": {"required": False, "help_text": _("Made from the name when left out.")}
        }
        validators: list[Any] = []

    def get_fields(self) -> dict[str, serializers.Field]:
        fields = super().get_fields()
        fields["federation"].queryset = self.visible_federations()  # type: ignore[attr-defined]
        return fields

    def create(self, validated_data: dict[str, Any]) -> Club:
        federation = validated_data.pop("federation")
        with service_errors():
            club = services.create_club(federation, by=self.acting_user, **validated_data)
        club.member_count = 0  # type: ignore[attr-defined]
        return club

    def update(self, instance: Club, validated_data: dict[str, Any]) -> Club:
        federation = validated_data.pop("federation", instance.federation)
        if federation != instance.federation:
            raise serializers.ValidationError(
                {"federation": [_("A club cannot move to another federation.")]}
            )
        with service_errors():
            return services.update_club(instance, by=self.acting_user, **validated_data)


class PlayerSerializer(CountryFieldMixin, ServiceSerializer):
    """A player: one identity across clubs, tournaments and years."""

    federation = serializers.PrimaryKeyRelatedField(
        queryset=Federation.objects.none(), allow_null=True, required=False
    )
    club = serializers.PrimaryKeyRelatedField(
        queryset=Club.objects.none(),
        write_only=True,
        required=False,
        help_text=_("On creation only: the player joins this club from today."),
    )
    merged_into = serializers.PrimaryKeyRelatedField(
        read_only=True,
        allow_null=True,
        help_text=_("The player this duplicate was merged into (null for an active player)."),
    )

    class Meta:
        model = Player
        fields = [
            "id",
            "name_native",
            "name_latin",
            "birth_year",
            "gender",
            "country",
            "federation",
            "membership_number",
            "merged_into",
            "club",
        ]
        extra_kwargs = {
            "birth_year": {
                "help_text": _("Null when the federation does not publish birth years.")
            },
            "membership_number": {
                "help_text": _(
                    "Empty when the federation does not publish membership numbers. Like the "
                    "federation, kept by the federation: the player cannot change it."
                )
            },
        }
        validators: list[Any] = []

    def get_fields(self) -> dict[str, serializers.Field]:
        fields = super().get_fields()
        visible = self.visible_federations()
        fields["federation"].queryset = visible  # type: ignore[attr-defined]
        fields["club"].queryset = Club.objects.filter(federation__in=visible)  # type: ignore[attr-defined]
        return fields

    def to_representation(self, instance: Player) -> dict[str, Any]:
        data = super().to_representation(instance)
        federation = instance.federation
        if not permissions.sees_private_player_data(self.acting_user, instance):
            if federation is None or not federation.show_birth_year:
                data["birth_year"] = None
            if federation is None or not federation.show_membership_numbers:
                data["membership_number"] = ""
        return data

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if self.instance is not None:
            with service_errors():
                services.refuse_federation_kept_changes(
                    self.instance, by=self.acting_user, values=attrs
                )
        club = attrs.get("club")
        if club is not None:
            if self.instance is not None:
                raise serializers.ValidationError(
                    {"club": [_("Change memberships through the memberships endpoint.")]}
                )
            if attrs.get("federation") not in (None, club.federation):
                raise serializers.ValidationError(
                    {"club": [_("The club belongs to another federation.")]}
                )
        return attrs

    def create(self, validated_data: dict[str, Any]) -> Player:
        club = validated_data.pop("club", None)
        with service_errors():
            return services.create_player(by=self.acting_user, club=club, **validated_data)

    def update(self, instance: Player, validated_data: dict[str, Any]) -> Player:
        with service_errors():
            return services.update_player(instance, by=self.acting_user, **validated_data)


class MembershipSerializer(ServiceSerializer):
    """A player's membership of a club, from ``start`` to ``end`` (null: open)."""

    player = serializers.PrimaryKeyRelatedField(queryset=Player.objects.none())
    club = serializers.PrimaryKeyRelatedField(queryset=Club.objects.none())
    is_current = serializers.SerializerMethodField(help_text=_("Whether it is current today."))

    class Meta:
        model = Membership
        fields = ["id", "player", "club", "start", "end", "is_current"]
        validators: list[Any] = []

    def get_fields(self) -> dict[str, serializers.Field]:
        fields = super().get_fields()
        visible = self.visible_federations()
        fields["club"].queryset = Club.objects.filter(federation__in=visible)  # type: ignore[attr-defined]
        fields["player"].queryset = Player.objects.filter(  # type: ignore[attr-defined]
            Q(federation__isnull=True) | Q(federation__in=visible), merged_into__isnull=True
        )
        return fields

    def get_is_current(self, membership: Membership) -> bool:
        today = self.context.get("today") or datetime.date.today()
        return membership.start <= today and (membership.end is None or membership.end >= today)

    def update(self, instance: Membership, validated_data: dict[str, Any]) -> Membership:
        for name in ("player", "club"):
            if validated_data.get(name, getattr(instance, name)) != getattr(instance, name):
                raise serializers.ValidationError(
                    {name: [_("A membership keeps its player and club; add a new one instead.")]}
                )
        with service_errors():
            return services.update_membership(
                instance,
                by=self.acting_user,
                start=validated_data.get("start", instance.start),
                end=validated_data.get("end", instance.end),
            )

    def create(self, validated_data: dict[str, Any]) -> Membership:
        with service_errors():
            return services.add_membership(
                validated_data["player"],
                validated_data["club"],
                by=self.acting_user,
                start=validated_data["start"],
                end=validated_data.get("end"),
            )


class MembershipEndSerializer(serializers.Serializer):
    """When a membership ends."""

    end = serializers.DateField(help_text=_("The last day of the membership."))
