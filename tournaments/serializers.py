"""Serializers of the tournaments API.  They validate and shape data; every write is
handed to tournaments.services (which checks permissions through clubs.permissions).

Results are shown only where ``games.visibility`` allows: the score of a
pairing in a silent round, or of a tournament that does not publish results,
is null for everyone but its organizers and arbiters and the pairing's two
players (``tournaments.services.visibility.pairing_result_hidden``).
"""

from __future__ import annotations

from typing import Any, get_args

from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from base.fields import (
    ID_RANGE,
    POSITIVE,
    BoundedIntegers,
    IntegerKeyField,
    KeyedDictField,
    PatternKeyField,
    id_field,
    keyed_object_schema,
)
from clubs import permissions
from clubs.models import Club, Discipline, Federation, Player
from clubs.serializers import service_errors
from games.serializers import MATCH_SETTING_BOUNDS
from tournaments import permissions as tournament_permissions
from tournaments import services
from tournaments.core import offered_codes
from tournaments.core.bracket import MatchStatus
from tournaments.formats import flights
from tournaments.models import (
    Entry,
    Pairing,
    Round,
    StandingsSnapshot,
    Tournament,
    TournamentState,
)


class _ActingUser:
    context: dict[str, Any]

    @property
    def acting_user(self) -> Any:
        request = self.context.get("request")
        return getattr(request, "user", None)

    def manages(self, tournament: Tournament) -> bool:
        user = self.acting_user
        return bool(
            user is not None
            and user.is_authenticated
            and user.is_active
            and (
                permissions.is_site_admin(user) or tournament_permissions.manages(user, tournament)
            )
        )


# The settings beside what the tournament is (listed on their own in the Meta).
SETTINGS = list(services.PLAY_FIELDS)


# Keys of ``match_lengths``: a flight (Round.flight holds 20 characters), then a
# round number, "final" or "default".
FLIGHT_KEY = "^[a-z0-9_-]{1,20}$"
ROUND_KEY = "^([1-9][0-9]{0,4}|final|default)$"
LENGTH_BOUNDS = {"min_value": 1, "max_value": MATCH_SETTING_BOUNDS["length"]["max_value"]}


def _length_schema() -> dict[str, Any]:
    return {
        "type": "integer",
        "minimum": LENGTH_BOUNDS["min_value"],
        "maximum": LENGTH_BOUNDS["max_value"],
    }


@extend_schema_field(
    {"oneOf": [_length_schema(), keyed_object_schema(_length_schema(), ROUND_KEY)]}
)
class FlightLengthsField(serializers.Field):
    """The match length of a flight: one for all its rounds, or lengths by round
    number, "final" and "default" (each key and length checked)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.length = serializers.IntegerField(**LENGTH_BOUNDS)
        self.per_round = KeyedDictField(
            key_field=PatternKeyField(
                ROUND_KEY, _("A round number, “final” or “default” is expected.")
            ),
            child=serializers.IntegerField(**LENGTH_BOUNDS),
        )

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            return self.per_round.run_validation(data)
        return self.length.run_validation(data)

    def to_representation(self, value: Any) -> Any:
        return value


class TournamentSerializer(BoundedIntegers, _ActingUser, serializers.ModelSerializer):
    """A tournament and its settings.  Create with ``federation`` (and optionally a host
    ``club``); once it runs, only some settings may change (the services say which)."""

    federation = serializers.PrimaryKeyRelatedField(queryset=Federation.objects.none())
    club = serializers.PrimaryKeyRelatedField(
        queryset=Club.objects.none(), allow_null=True, required=False
    )
    discipline = serializers.SlugRelatedField(
        slug_field="code", queryset=Discipline.objects.all(), help_text=_("Discipline code.")
    )
    qualifies_from = serializers.PrimaryKeyRelatedField(
        queryset=Tournament.objects.none(), allow_null=True, required=False
    )
    slug = serializers.SlugField(required=False, max_length=80)
    tie_breaks = serializers.ListField(
        child=serializers.CharField(max_length=10),
        max_length=20,
        required=False,
        help_text=format_lazy(
            "{} {}.", _("Tie-break codes in order, chosen from:"), ", ".join(offered_codes())
        ),
    )
    match_lengths = KeyedDictField(
        key_field=PatternKeyField(
            FLIGHT_KEY,
            _("A flight is named with small Latin letters, digits, “-” and “_” (at most 20)."),
        ),
        child=FlightLengthsField(),
        required=False,
        help_text=_(
            'Match length per flight and round, e.g. {"main": {"1": 9, "final": 13}, "consolation": 7}.'
        ),
    )
    variant_options = KeyedDictField(
        key_field=PatternKeyField(
            "^(army|placement|placement_black)$",
            _("A variant option is army, placement or placement_black."),
        ),
        child=serializers.CharField(max_length=200),
        required=False,
        help_text=_(
            "The discipline's variant options for this tournament's matches (Soldiers: "
            'e.g. {"army": "K1 G1 D1 E1 O1", "placement": "K24 G13 D8 E6 O6"}); '
            "empty: the discipline's."
        ),
    )
    webhook_url = serializers.URLField(
        required=False,
        allow_blank=True,
        help_text=_(
            "Managers only: signed POSTs of round.started, result.confirmed, standings.published."
        ),
    )
    # Plain text in the schema: several models name their own choice sets "state".
    state = serializers.CharField(
        read_only=True, help_text=_("draft, registration, check_in, running or finished.")
    )
    can_manage = serializers.SerializerMethodField(help_text=_("Whether you run this tournament."))

    class Meta:
        model = Tournament
        fields = [
            "id",
            "name",
            "slug",
            "federation",
            "club",
            "discipline",
            "format",
            "state",
            *SETTINGS,
            "created_at",
            "can_manage",
        ]
        read_only_fields = ["state", "created_at"]
        validators: list[Any] = []
        # The match settings a match of the tournament may have (games.serializers).
        extra_kwargs = {
            "match_length": LENGTH_BOUNDS,
            **{
                name: bounds
                for name, bounds in MATCH_SETTING_BOUNDS.items()
                if name.startswith("clock_")
            },
        }

    def get_fields(self) -> dict[str, serializers.Field]:
        fields = super().get_fields()
        visible = permissions.visible_federations(self.acting_user)
        fields["federation"].queryset = visible  # type: ignore[attr-defined]
        fields["club"].queryset = Club.objects.filter(federation__in=visible)  # type: ignore[attr-defined]
        fields["qualifies_from"].queryset = tournament_permissions.visible_tournaments(  # type: ignore[attr-defined]
            self.acting_user
        )
        if self.instance is not None and not isinstance(self.instance, list | tuple):
            for name in ("federation", "format"):
                fields[name].read_only = True
        return fields

    @extend_schema_field(OpenApiTypes.BOOL)
    def get_can_manage(self, tournament: Tournament) -> bool:
        return self.manages(tournament)

    def to_representation(self, instance: Tournament) -> dict[str, Any]:
        data = super().to_representation(instance)
        if not self.manages(instance):
            data["webhook_url"] = ""
        return data

    def create(self, validated_data: dict[str, Any]) -> Tournament:
        data = dict(validated_data)
        with service_errors():
            return services.create_tournament(
                by=self.acting_user,
                federation=data.pop("federation"),
                name=data.pop("name"),
                discipline=data.pop("discipline"),
                format=data.pop("format"),
                club=data.pop("club", None),
                **data,
            )

    def update(self, instance: Tournament, validated_data: dict[str, Any]) -> Tournament:
        with service_errors():
            return services.update_tournament(instance, by=self.acting_user, **validated_data)


class TournamentStateSerializer(serializers.Serializer):
    state = serializers.ChoiceField(choices=TournamentState.choices)


class PairRoundSerializer(serializers.Serializer):
    flight = serializers.CharField(
        default=flights.MAIN,
        max_length=20,  # Round.flight
        help_text=format_lazy(
            _("{flights}, or a cup stage ({stage}, ...)."),
            flights=", ".join(flights.NAMED),
            stage=flights.stage(1),
        ),
    )
    silent = serializers.BooleanField(
        default=False, help_text=_("Hide the round's results and the standings until released.")
    )


class SeedsSerializer(serializers.Serializer):
    seeds = KeyedDictField(
        key_field=IntegerKeyField(min_value=ID_RANGE[0], max_value=ID_RANGE[1]),
        child=serializers.IntegerField(min_value=1, max_value=POSITIVE[1]),
        required=False,
        allow_null=True,
        help_text=_("Entry id -> seed; leave out to seed by rating."),
    )


class EntrySerializer(BoundedIntegers, _ActingUser, serializers.ModelSerializer):
    """A player's entry.  Organizers enter anyone (``late`` while a Swiss or cup runs);
    a player enters themself while registration is open."""

    tournament = serializers.PrimaryKeyRelatedField(queryset=Tournament.objects.none())
    player = serializers.PrimaryKeyRelatedField(queryset=Player.objects.none())
    player_name = serializers.CharField(source="player", read_only=True)

    class Meta:
        model = Entry
        fields = [
            "id",
            "tournament",
            "player",
            "player_name",
            "seed",
            "rating",
            "status",
            "withdrawn_after_round",
            "late",
            "created_at",
        ]
        read_only_fields = ["status", "withdrawn_after_round", "created_at"]
        validators: list[Any] = []
        # No rating system (FIBS, Glicko-2) comes near these bounds.
        extra_kwargs = {"seed": {"min_value": 1}, "rating": {"min_value": 0, "max_value": 10_000}}

    def get_fields(self) -> dict[str, serializers.Field]:
        fields = super().get_fields()
        fields["tournament"].queryset = tournament_permissions.visible_tournaments(  # type: ignore[attr-defined]
            self.acting_user
        )
        fields["player"].queryset = Player.objects.filter(merged_into__isnull=True)  # type: ignore[attr-defined]
        return fields

    def create(self, validated_data: dict[str, Any]) -> Entry:
        with service_errors():
            return services.add_entry(
                validated_data["tournament"],
                validated_data["player"],
                by=self.acting_user,
                seed=validated_data.get("seed"),
                late=validated_data.get("late", False),
                rating=validated_data.get("rating"),
            )


class RoundSerializer(serializers.ModelSerializer):
    """A round of a flight: paired, started (a match per pairing), closed."""

    class Meta:
        model = Round
        fields = [
            "id",
            "tournament",
            "flight",
            "number",
            "match_length",
            "state",
            "silent",
            "started_at",
            "closed_at",
        ]
        read_only_fields = fields


class SilentSerializer(serializers.Serializer):
    silent = serializers.BooleanField()


class EditPairingsSerializer(serializers.Serializer):
    pairs = serializers.ListField(
        child=serializers.ListField(child=id_field(allow_null=True), min_length=1, max_length=2),
        help_text=_(
            "[[entry, entry], [entry, null] for a bye, ...]: every player of the round once."
        ),
    )


class PairingResultSerializer(serializers.Serializer):
    """The result of a pairing, as ``PairingSerializer.get_result`` gives it (documentation)."""

    score1 = serializers.IntegerField(allow_null=True, help_text=_("Null for a bye."))
    score2 = serializers.IntegerField(allow_null=True, help_text=_("Null for a bye."))
    winner = serializers.IntegerField(
        allow_null=True,
        help_text=_("The winning entry's id; null when both players forfeit."),
    )
    forfeit = serializers.BooleanField()
    bye = serializers.BooleanField()


class PairingSerializer(_ActingUser, serializers.ModelSerializer):
    """A table of a round.  ``entry2`` null is a bye.  The result (score, winner) is the
    match's confirmed one; null while pending, and hidden where results are not public."""

    flight = serializers.CharField(source="round.flight", read_only=True)
    round_number = serializers.IntegerField(source="round.number", read_only=True)
    tournament = serializers.IntegerField(source="round.tournament_id", read_only=True)
    player1 = serializers.IntegerField(source="entry1.player_id", read_only=True)
    player1_name = serializers.CharField(source="entry1.player", read_only=True)
    player2 = serializers.SerializerMethodField()
    player2_name = serializers.SerializerMethodField()
    result = serializers.SerializerMethodField(
        help_text=_(
            "The confirmed result; null while the table is not played and where "
            "results are not public."
        )
    )

    class Meta:
        model = Pairing
        fields = [
            "id",
            "tournament",
            "round",
            "flight",
            "round_number",
            "table",
            "slot",
            "entry1",
            "entry2",
            "player1",
            "player1_name",
            "player2",
            "player2_name",
            "match",
            "result",
        ]
        read_only_fields = fields

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_player2(self, pairing: Pairing) -> int | None:
        return pairing.entry2.player_id if pairing.entry2 is not None else None

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_player2_name(self, pairing: Pairing) -> str | None:
        return str(pairing.entry2.player) if pairing.entry2 is not None else None

    @extend_schema_field(PairingResultSerializer(allow_null=True))
    def get_result(self, pairing: Pairing) -> dict[str, Any] | None:
        from tournaments import adapters
        from tournaments.services import visibility as results_rule

        if results_rule.pairing_result_hidden(self.acting_user, pairing):
            return None
        outcome = adapters.pairing_outcome(pairing)
        if outcome is None:
            return None
        side, forfeit = outcome
        match = pairing.match
        winner = None
        if side == 1:
            winner = pairing.entry1_id
        elif side == 2:
            winner = pairing.entry2_id
        return {
            "score1": match.score1 if match is not None and not pairing.is_bye else None,
            "score2": match.score2 if match is not None and not pairing.is_bye else None,
            "winner": winner if not pairing.is_bye else pairing.entry1_id,
            "forfeit": forfeit,
            "bye": pairing.is_bye,
        }


class ForfeitSerializer(serializers.Serializer):
    winner = id_field(
        allow_null=True,
        help_text=_(
            "The entry id of the player who wins; null when both forfeit (a loss for each, "
            "not in a knock-out bracket)."
        ),
    )
    reason = serializers.CharField(max_length=2000)


class StandingsSummarySerializer(serializers.ModelSerializer):
    """Standings after a round, without their rows (the list of snapshots: rows are read
    one table at a time, a page at a time).  Unpublished snapshots are seen by the
    managers only."""

    tie_breaks = serializers.ListField(child=serializers.CharField(), read_only=True)

    class Meta:
        model = StandingsSnapshot
        fields = ["id", "tournament", "after_round", "tie_breaks", "computed_at", "published_at"]
        read_only_fields = fields


class StandingsRowPageSerializer(serializers.Serializer):
    """One page of a standings table's rows (``?page=``), best first."""

    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = serializers.ListField(child=serializers.DictField())


class StandingsPageSerializer(StandingsSummarySerializer):
    """A standings snapshot with one page of its rows, best first: place, entry, player,
    name, score, tie-break values in the listed order, wins, losses, byes, forfeits,
    withdrawn, flight and group."""

    rows = StandingsRowPageSerializer()

    class Meta(StandingsSummarySerializer.Meta):
        fields = [*StandingsSummarySerializer.Meta.fields, "rows"]
        read_only_fields = fields


class BracketSideSerializer(serializers.Serializer):
    """Who sits on one side of a bracket match (``queries.bracket_view``)."""

    entry = serializers.IntegerField(allow_null=True, help_text=_("Null for a bye."))
    name = serializers.CharField(allow_blank=True)
    seed = serializers.IntegerField(allow_null=True)
    bye = serializers.BooleanField()


class BracketMatchSerializer(serializers.Serializer):
    """One match of a bracket, as ``queries.bracket_view`` draws it (documentation of
    ``GET /api/tournaments/{id}/bracket/``: a list of columns of these)."""

    slot = serializers.CharField(help_text=_("The match's place in the bracket, such as M2-1."))
    section = serializers.CharField()
    round = serializers.IntegerField()
    index = serializers.IntegerField()
    status = serializers.ChoiceField(choices=list(get_args(MatchStatus)))
    entry1 = BracketSideSerializer(allow_null=True, help_text=_("Null while not known yet."))
    entry2 = BracketSideSerializer(allow_null=True, help_text=_("Null while not known yet."))
    score1 = serializers.IntegerField(allow_null=True)
    score2 = serializers.IntegerField(allow_null=True)
    winner = serializers.IntegerField(allow_null=True, help_text=_("The winning entry's id."))
    forfeit = serializers.BooleanField()
    pairing = serializers.IntegerField(allow_null=True)
    match = serializers.IntegerField(allow_null=True)
    feeds_from = serializers.ListField(
        child=serializers.CharField(), help_text=_("The slots whose players come here.")
    )
    winner_to = serializers.CharField(allow_null=True)
    loser_to = serializers.CharField(allow_null=True)


# The bracket's answer: columns (rounds in playing order), each its matches top to bottom.
BRACKET_COLUMNS = serializers.ListSerializer(child=BracketMatchSerializer(many=True))
