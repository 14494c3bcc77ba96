"""Rating pools, each player's current rating, the history of every change, and lists.

One pool per federation × rated discipline (clubs.FederationDiscipline holds
its system and start values).  History rows record each rated match's effect
with the values before and after, so a recomputation can restart from any
match: the state just before it is read back from the rows.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from clubs.models import FederationDiscipline, Player
from games.models import ArchiveImport, Match


class RatingPool(models.Model):
    rated_discipline = models.OneToOneField(
        FederationDiscipline,
        on_delete=models.CASCADE,
        related_name="pool",
        verbose_name=_("rated discipline"),
    )
    glicko_tau = models.FloatField(_("Glicko-2 τ"), default=0.5)
    start_rd = models.FloatField(_("starting RD"), default=350.0)
    start_volatility = models.FloatField(_("starting volatility"), default=0.06)
    # Every rated match up to this key (finished_at, match id) is in the history.
    computed_through_at = models.DateTimeField(
        null=True, blank=True, verbose_name=_("computed through at")
    )
    computed_through_match = models.BigIntegerField(
        null=True, blank=True, verbose_name=_("computed through match ID")
    )
    computed_at = models.DateTimeField(null=True, blank=True, verbose_name=_("computed at"))
    # One more whenever the pool's ratings are written or a list of it is published
    # (ratings.services, under the pool's row lock): the version of its live list
    # and of the pages that list its lists (ratings.queries.list_version).
    version = models.PositiveBigIntegerField(default=0, editable=False, verbose_name=_("version"))
    # One more whenever a name or a club its lists show changes (clubs.names_changed,
    # ratings.services.bump_where_names_show): ``version`` does not move then, and
    # the list pages' tables are keyed by both.
    names_version = models.PositiveBigIntegerField(
        default=0, editable=False, verbose_name=_("names version")
    )

    class Meta:
        verbose_name = _("rating pool")
        verbose_name_plural = _("rating pools")

    def __str__(self) -> str:
        return str(self.rated_discipline)

    @property
    def system(self) -> str:
        return self.rated_discipline.rating_system


class PlayerRating(models.Model):
    pool = models.ForeignKey(
        RatingPool, on_delete=models.CASCADE, related_name="ratings", verbose_name=_("pool")
    )
    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="ratings", verbose_name=_("player")
    )
    rating = models.FloatField(_("rating"))
    experience = models.PositiveIntegerField(_("experience"), default=0)
    rd = models.FloatField(_("RD"), null=True, blank=True)
    volatility = models.FloatField(_("volatility"), null=True, blank=True)
    matches = models.PositiveIntegerField(_("rated matches"), default=0)
    last_played_at = models.DateTimeField(null=True, blank=True, verbose_name=_("last played at"))

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["pool", "player"], name="one_rating_per_pool_player")
        ]
        indexes = [models.Index(fields=["pool", "-rating"])]
        verbose_name = _("player rating")
        verbose_name_plural = _("player ratings")

    def __str__(self) -> str:
        return f"{self.player}: {self.rating:.2f}"


class RatingChange(models.Model):
    """One player's rating change from one rated match (or one Glicko-2 period).

    Derived data: a recomputation deletes and rewrites millions of these rows
    with COPY, so the pool, player and match keys carry no database constraint
    (checking them took most of a full recompute's time); the rows are
    rebuilt from confirmed matches whenever anything they derive from changes.
    """

    # Both composite indexes below start with the pool, so it needs no index of its own.
    pool = models.ForeignKey(
        RatingPool,
        on_delete=models.CASCADE,
        db_constraint=False,
        db_index=False,
        related_name="changes",
        verbose_name=_("pool"),
    )
    player = models.ForeignKey(
        Player,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="rating_changes",
        verbose_name=_("player"),
    )
    match = models.ForeignKey(
        Match,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="rating_changes",
        null=True,
        verbose_name=_("match"),
    )
    played_at = models.DateTimeField(verbose_name=_("played at"))
    # Glicko-2: the rating period's number (ratings.core.periods) and the
    # player's matches in it; FIBS rows are one match each.
    period = models.IntegerField(null=True, blank=True, verbose_name=_("period"))
    matches = models.PositiveIntegerField(default=1, verbose_name=_("matches"))
    rating_before = models.FloatField(verbose_name=_("rating before"))
    rating_after = models.FloatField(verbose_name=_("rating after"))
    experience_before = models.PositiveIntegerField(default=0, verbose_name=_("experience before"))
    experience_after = models.PositiveIntegerField(default=0, verbose_name=_("experience after"))
    rd_before = models.FloatField(null=True, blank=True, verbose_name=_("RD before"))
    rd_after = models.FloatField(null=True, blank=True, verbose_name=_("RD after"))
    volatility_before = models.FloatField(
        null=True, blank=True, verbose_name=_("volatility before")
    )
    volatility_after = models.FloatField(null=True, blank=True, verbose_name=_("volatility after"))

    class Meta:
        ordering = ["pool", "played_at", "match_id", "player_id"]
        indexes = [
            models.Index(fields=["pool", "played_at", "match"]),
            models.Index(fields=["pool", "player", "played_at"]),
        ]
        verbose_name = _("rating change")
        verbose_name_plural = _("rating changes")

    def __str__(self) -> str:
        return f"{self.player}: {self.rating_before:.2f} → {self.rating_after:.2f}"


class RatingList(models.Model):
    """A list published at a date; frozen once published."""

    pool = models.ForeignKey(
        RatingPool, on_delete=models.CASCADE, related_name="lists", verbose_name=_("pool")
    )
    date = models.DateField(_("date"))
    published_at = models.DateTimeField(_("published"), null=True, blank=True)

    class Meta:
        ordering = ["pool", "-date"]
        constraints = [
            models.UniqueConstraint(fields=["pool", "date"], name="one_list_per_pool_date")
        ]
        verbose_name = _("rating list")
        verbose_name_plural = _("rating lists")

    def __str__(self) -> str:
        return f"{self.pool} {self.date:%Y-%m-%d}"

    @property
    def is_published(self) -> bool:
        return self.published_at is not None


class RatingListEntry(models.Model):
    rating_list = models.ForeignKey(
        RatingList, on_delete=models.CASCADE, related_name="entries", verbose_name=_("rating list")
    )
    player = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="+", verbose_name=_("player")
    )
    rank = models.PositiveIntegerField(_("rank"))
    rating = models.FloatField(_("rating"))
    experience = models.PositiveIntegerField(_("experience"), default=0)
    rd = models.FloatField(_("RD"), null=True, blank=True)
    matches = models.PositiveIntegerField(_("rated matches"), default=0)
    provisional = models.BooleanField(_("provisional"), default=False)
    change = models.FloatField(_("change"), null=True, blank=True)

    class Meta:
        ordering = ["rating_list", "rank", "player_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["rating_list", "player"], name="one_entry_per_list_player"
            )
        ]
        verbose_name = _("rating list entry")
        verbose_name_plural = _("rating list entries")

    def __str__(self) -> str:
        return f"{self.rank}. {self.player} {self.rating:.2f}"


class RatedArchive(models.Model):
    """An archive of match files whose matches count for a pool (ratings.archives).

    An imported archive's matches count for no pool until a federation's admin
    chooses one (``rated_matches`` reads this); they are dated by their files.
    Chosen once: another pool is refused.
    """

    archive = models.OneToOneField(
        ArchiveImport,
        on_delete=models.CASCADE,
        related_name="rated",
        verbose_name=_("match archive"),
    )
    pool = models.ForeignKey(
        RatingPool, on_delete=models.CASCADE, related_name="archives", verbose_name=_("pool")
    )
    chosen_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("chosen by"),
    )
    chosen_at = models.DateTimeField(_("chosen at"), auto_now_add=True)

    class Meta:
        verbose_name = _("rated archive")
        verbose_name_plural = _("rated archives")

    def __str__(self) -> str:
        return f"{self.archive} → {self.pool}"
