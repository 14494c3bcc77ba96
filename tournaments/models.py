"""Tournaments, their flights, entries, rounds, pairings and standings.

The pairing and standings maths lives in ``tournaments.core`` (pure);
``tournaments.adapters`` loads these rows into its types and writes results
back.  Each pairing gets a ``games.Match``; a confirmed match result is what
standings are computed from.
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from clubs.models import Club, Discipline, Federation, Player
from games.models import Match, TimeControl
from tournaments.formats import flights
from tournaments.formats.codes import Format


class TournamentState(models.TextChoices):
    DRAFT = "draft", _("draft")
    REGISTRATION = "registration", _("registration")
    CHECK_IN = "check_in", _("check-in")
    RUNNING = "running", _("running")
    FINISHED = "finished", _("finished")


class TieBreakerLot(models.TextChoices):
    SHARE = "share", _("tied players share the place")
    LOT = "lot", _("remaining ties broken by lot")


def default_tie_breaks() -> list[str]:
    return ["BH-C1", "BH", "SB", "DE"]


def new_webhook_secret() -> str:
    return secrets.token_urlsafe(32)


class Tournament(TimeControl):
    name = models.CharField(_("name"), max_length=200)
    slug = models.SlugField(_("slug"), max_length=80)
    federation = models.ForeignKey(
        Federation,
        on_delete=models.PROTECT,
        related_name="tournaments",
        verbose_name=_("federation"),
    )
    club = models.ForeignKey(
        Club,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="tournaments",
        verbose_name=_("host club"),
    )
    discipline = models.ForeignKey(
        Discipline, on_delete=models.PROTECT, verbose_name=_("discipline")
    )
    # The organizer's house rules for the discipline's variant (Soldiers' army and
    # placement), given to every match of the tournament; empty: the discipline's.
    variant_options = models.JSONField(_("variant options"), default=dict, blank=True)
    format = models.CharField(_("format"), max_length=24, choices=Format.choices)
    starts_on = models.DateField(_("starts on"), null=True, blank=True)
    # Format settings (the meaningful ones depend on the format).
    rounds_planned = models.PositiveSmallIntegerField(
        _("rounds (Swiss, truncated round robin)"), null=True, blank=True
    )
    max_losses = models.PositiveSmallIntegerField(
        _("eliminated after this many losses (Swiss)"), null=True, blank=True
    )
    groups = models.PositiveSmallIntegerField(_("number of groups"), null=True, blank=True)
    qualifiers_per_group = models.PositiveSmallIntegerField(
        _("qualifiers per group"), null=True, blank=True
    )
    progressive_consolation = models.BooleanField(_("progressive consolation"), default=False)
    last_chance = models.BooleanField(_("last-chance flight"), default=False)
    seeding = models.CharField(
        _("seeding"),
        max_length=10,
        choices=[("rating", _("by rating")), ("manual", _("by hand"))],
        default="rating",
    )
    # Match length: a default, overridden per round or per flight in ``match_lengths``.
    match_length = models.PositiveSmallIntegerField(
        _("match length"), default=7, validators=[MinValueValidator(1)]
    )
    match_lengths = models.JSONField(
        _("match lengths per flight and round"),
        default=dict,
        blank=True,
        help_text=_('For example {"main": {"1": 9, "final": 13}, "consolation": 7}.'),
    )
    bye_is_win = models.BooleanField(_("a bye counts as a win"), default=True)
    tie_breaks = models.JSONField(_("tie-break order"), default=default_tie_breaks)
    remaining_ties = models.CharField(
        _("remaining ties"),
        max_length=10,
        choices=TieBreakerLot.choices,
        default=TieBreakerLot.SHARE,
    )
    recorded_matches = models.BooleanField(_("matches recorded move by move"), default=False)
    state = models.CharField(
        _("state"), max_length=14, choices=TournamentState.choices, default=TournamentState.DRAFT
    )
    # Publication.
    is_public = models.BooleanField(_("public"), default=True)
    publish_pairings = models.BooleanField(_("publish pairings"), default=True)
    publish_results = models.BooleanField(_("publish results"), default=True)
    publish_standings = models.BooleanField(_("publish standings"), default=True)
    # Qualification: the top places of another tournament are entered here.
    qualifies_from = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="qualifies_to",
        verbose_name=_("qualifies from"),
    )
    qualifying_places = models.PositiveSmallIntegerField(
        _("qualifying places"), null=True, blank=True
    )
    # Set when a result arrives; the standings task clears it only if unchanged,
    # so a burst of results is computed once.
    standings_requested_at = models.DateTimeField(
        null=True, blank=True, editable=False, verbose_name=_("standings requested at")
    )
    # Bumped in the same transaction by every service that changes what the public
    # pages, pairings or standings show (services.common.bump_public_version): the
    # version their cached renderings and ETags are keyed by (base.httpcache).  A
    # service that saves the whole row read it under the row lock first
    # (services.common.lock_tournament), so it never writes an older value back.
    public_version = models.PositiveBigIntegerField(
        default=0, editable=False, verbose_name=_("public version")
    )
    # Players check themselves in from their phones through a link carrying this
    # token, between these two moments (services.entries.open_self_check_in): a
    # random token, so the link cannot be guessed from the tournament's address.
    self_check_in_opens_at = models.DateTimeField(
        _("self check-in opens at"), null=True, blank=True
    )
    self_check_in_closes_at = models.DateTimeField(
        _("self check-in closes at"), null=True, blank=True
    )
    self_check_in_token = models.CharField(
        _("self check-in token"), max_length=43, blank=True, db_index=True, editable=False
    )
    webhook_url = models.URLField(_("webhook URL"), blank=True)
    webhook_secret = models.CharField(
        max_length=64, default=new_webhook_secret, editable=False, verbose_name=_("webhook secret")
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        ordering = ["-starts_on", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["federation", "slug"], name="tournament_slug_per_federation"
            )
        ]
        verbose_name = _("tournament")
        verbose_name_plural = _("tournaments")

    def __str__(self) -> str:
        return self.name

    def length_for(self, flight: str, round_number: int, final: bool = False) -> int:
        """The match length of a round: per flight and round, else per flight, else the default."""
        lengths = self.match_lengths or {}
        per_flight = lengths.get(flight)
        if isinstance(per_flight, dict):
            if final and "final" in per_flight:
                return int(per_flight["final"])
            if str(round_number) in per_flight:
                return int(per_flight[str(round_number)])
            if "default" in per_flight:
                return int(per_flight["default"])
        elif isinstance(per_flight, int):
            return per_flight
        return self.match_length


class EntryStatus(models.TextChoices):
    REGISTERED = "registered", _("registered")
    CHECKED_IN = "checked_in", _("checked in")
    WITHDRAWN = "withdrawn", _("withdrawn")


class Entry(models.Model):
    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="entries", verbose_name=_("tournament")
    )
    player = models.ForeignKey(
        Player,
        on_delete=models.PROTECT,
        related_name="tournament_entries",
        verbose_name=_("player"),
    )
    seed = models.PositiveIntegerField(_("seed"), null=True, blank=True)
    rating = models.FloatField(_("rating at entry"), null=True, blank=True)
    status = models.CharField(
        _("status"), max_length=12, choices=EntryStatus.choices, default=EntryStatus.REGISTERED
    )
    withdrawn_after_round = models.PositiveSmallIntegerField(
        null=True, blank=True, verbose_name=_("withdrawn after round")
    )
    # What undoing the withdrawal needs (services.entries.reinstate): the status before
    # it, the newest round then (a round paired since makes it final), and the
    # forfeits it recorded, to be taken back.  Empty for an entry not withdrawn.
    withdrawal = models.JSONField(null=True, blank=True, verbose_name=_("withdrawal"))
    late = models.BooleanField(_("late entry"), default=False)
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        ordering = ["tournament", "seed", "id"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "player"], name="one_entry_per_player")
        ]
        verbose_name = _("entry")
        verbose_name_plural = _("entries")

    def __str__(self) -> str:
        return f"{self.player} @ {self.tournament}"


class RoundState(models.TextChoices):
    PAIRED = "paired", _("paired")
    STARTED = "started", _("started")
    CLOSED = "closed", _("closed")


class Round(models.Model):
    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="rounds", verbose_name=_("tournament")
    )
    flight = models.CharField(_("flight"), max_length=20, default=flights.MAIN)
    number = models.PositiveSmallIntegerField(_("round"))
    match_length = models.PositiveSmallIntegerField(_("match length"))
    state = models.CharField(
        _("state"), max_length=10, choices=RoundState.choices, default=RoundState.PAIRED
    )
    # A silent round: pairings are published, results and standings are not (until released).
    silent = models.BooleanField(_("silent round"), default=False)
    started_at = models.DateTimeField(null=True, blank=True, verbose_name=_("started at"))
    closed_at = models.DateTimeField(null=True, blank=True, verbose_name=_("closed at"))

    class Meta:
        ordering = ["tournament", "number", "flight"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "flight", "number"], name="round_once_per_flight"
            )
        ]
        verbose_name = _("round")
        verbose_name_plural = _("rounds")

    def __str__(self) -> str:
        return f"{self.tournament} {self.flight} R{self.number}"


# ``Pairing.forfeit_winner`` when both players forfeit (both absent, or both withdrawn):
# a loss for each, outside brackets only (a bracket needs someone to go through).
BOTH_FORFEITED = 0


class Pairing(models.Model):
    round = models.ForeignKey(
        Round, on_delete=models.CASCADE, related_name="pairings", verbose_name=_("round")
    )
    table = models.PositiveSmallIntegerField(_("table"))
    entry1 = models.ForeignKey(
        Entry, on_delete=models.PROTECT, related_name="+", verbose_name=_("entry 1")
    )
    # Empty for a bye.
    entry2 = models.ForeignKey(
        Entry,
        on_delete=models.PROTECT,
        related_name="+",
        null=True,
        blank=True,
        verbose_name=_("entry 2"),
    )
    # Where a bracket slot comes from / leads to (the core's slot id), for drawing trees.
    slot = models.CharField(max_length=40, blank=True, verbose_name=_("slot"))
    match = models.OneToOneField(
        Match,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="pairing",
        verbose_name=_("match"),
    )
    # The side (1/2) that won by forfeit, BOTH_FORFEITED, or empty.
    forfeit_winner = models.PositiveSmallIntegerField(
        null=True, blank=True, verbose_name=_("forfeit winner")
    )

    class Meta:
        ordering = ["round", "table"]
        constraints = [
            models.UniqueConstraint(fields=["round", "table"], name="table_once_per_round"),
            models.CheckConstraint(
                condition=~Q(entry1=models.F("entry2")), name="pairing_two_entries"
            ),
        ]
        verbose_name = _("pairing")
        verbose_name_plural = _("pairings")

    def __str__(self) -> str:
        return f"{self.round} T{self.table}"

    @property
    def is_bye(self) -> bool:
        return self.entry2_id is None


class StandingsSnapshot(models.Model):
    """Standings after a round (computed by a Celery task), published when released."""

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="standings", verbose_name=_("tournament")
    )
    after_round = models.PositiveSmallIntegerField(verbose_name=_("after round"))
    rows = models.JSONField(default=list, verbose_name=_("rows"))
    tie_breaks = models.JSONField(default=list, verbose_name=_("tie-breaks"))
    results_digest = models.CharField(max_length=64, blank=True, verbose_name=_("results digest"))
    computed_at = models.DateTimeField(auto_now=True, verbose_name=_("computed at"))
    published_at = models.DateTimeField(null=True, blank=True, verbose_name=_("published at"))

    class Meta:
        ordering = ["tournament", "-after_round"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "after_round"], name="one_snapshot_per_round"
            )
        ]
        verbose_name = _("standings")
        verbose_name_plural = _("standings")

    def __str__(self) -> str:
        return f"{self.tournament} after round {self.after_round}"


class WebhookDelivery(models.Model):
    tournament = models.ForeignKey(
        Tournament,
        on_delete=models.CASCADE,
        related_name="webhook_deliveries",
        verbose_name=_("tournament"),
    )
    event = models.CharField(max_length=40, verbose_name=_("event"))
    payload = models.JSONField(verbose_name=_("payload"))
    status_code = models.PositiveSmallIntegerField(
        null=True, blank=True, verbose_name=_("status code")
    )
    error = models.TextField(blank=True, verbose_name=_("error"))
    attempts = models.PositiveSmallIntegerField(default=0, verbose_name=_("attempts"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    delivered_at = models.DateTimeField(null=True, blank=True, verbose_name=_("delivered at"))

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("webhook delivery")
        verbose_name_plural = _("webhook deliveries")

    def __str__(self) -> str:
        return f"{self.tournament} {self.event}"
