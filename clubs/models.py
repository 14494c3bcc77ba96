"""Federations, clubs, players, memberships, roles and the audit log.

A player keeps one identity across clubs, tournaments and years; memberships
keep their history (a closed membership has an ``end``).  Roles are scoped
assignments (federation, club, or any object of a higher app such as a
tournament, through a generic relation so this app imports nothing above it).
"""

from __future__ import annotations

import datetime
from typing import Any

from django.conf import settings
from django.contrib.contenttypes.fields import GenericForeignKey
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django_countries.fields import CountryField

from base.engine_messages import PRESET_LABELS, VARIANT_LABELS, message_for
from clubs.names import display_name, latin_adds
from engine.errors import EngineError
from engine.rules.game import GameRules
from engine.rules.scoring import PRESETS, preset_from_dict
from engine.rules.variants import VARIANTS, VariantOptions, variant_options

# RULES.md §3.1's default Soldiers army and placement, as an organiser writes them.
DEFAULT_OPTIONS = {"army": "K1 G1 D1 E1 O1", "placement": "K24 G13 D8 E6 O6"}


def variant_choices() -> list[tuple[str, Any]]:
    # Labels stay lazy: the choices are built once, shown in each reader's language.
    return [(name, VARIANT_LABELS.get(name, name)) for name in sorted(VARIANTS)]


def preset_choices() -> list[tuple[str, Any]]:
    return [(name, PRESET_LABELS.get(name, name)) for name in sorted(PRESETS)]


def checked_variant_options(variant: str, options: Any) -> dict[str, str]:
    """A variant's options (Soldiers' army and placement) as a discipline, a
    tournament or a match keeps them: names with written values that the variant
    takes and can use (the engine says why not, under ``variant_options``)."""
    if options in (None, ""):
        return {}
    if not isinstance(options, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in options.items()
    ):
        raise ValidationError(
            {"variant_options": _("Variant options are names with written values.")}
        )
    try:
        GameRules(VARIANTS[variant], options=variant_options(options))
    except EngineError as error:
        raise ValidationError({"variant_options": message_for(error)}) from error
    return options


class Discipline(models.Model):
    """What is played and how it scores: variant + scoring preset + cube or not."""

    code = models.SlugField(_("code"), max_length=40, unique=True)
    name = models.CharField(_("name"), max_length=120)
    variant = models.CharField(_("variant"), max_length=30, choices=variant_choices)
    scoring_preset = models.CharField(
        _("scoring preset"), max_length=40, choices=preset_choices, blank=True
    )
    # A federation's own list of result rules (RULES.md §6 condition catalogue);
    # used instead of the preset when given.
    custom_scoring = models.JSONField(_("custom scoring rules"), null=True, blank=True)
    cube = models.BooleanField(_("doubling cube"), default=True)
    # The variant's own options (``Variant.option_names``: Soldiers' ``army`` and
    # ``placement``, RULES §3.1) as written values; empty: the variant's defaults.
    variant_options = models.JSONField(_("variant options"), default=dict, blank=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("discipline")
        verbose_name_plural = _("disciplines")

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        if self.custom_scoring is None and not self.scoring_preset:
            raise ValidationError(_("Choose a scoring preset or define custom scoring rules."))
        if self.custom_scoring is not None:
            try:
                preset_from_dict(self.custom_scoring)
            except EngineError as error:
                raise ValidationError({"custom_scoring": message_for(error)}) from error
        variant = VARIANTS.get(self.variant)
        if variant is not None and self.cube and not variant.cube:
            raise ValidationError({"cube": _("This variant is played without the cube.")})
        if variant is not None:
            self._check_variant_options(variant.name)

    def _check_variant_options(self, name: str) -> None:
        self.variant_options = checked_variant_options(name, self.variant_options)

    @property
    def game_options(self) -> VariantOptions:
        """The options as the engine's game rules take them."""
        options = self.variant_options if isinstance(self.variant_options, dict) else {}
        return variant_options(options)

    @property
    def has_cube(self) -> bool:
        """Whether its matches are played with the doubling cube (and so the Crawford
        rule): the discipline says so and its variant knows the cube.  The one place
        the games, their sheets and their pages ask."""
        variant = VARIANTS.get(self.variant)
        return self.cube and variant is not None and variant.cube


class Federation(models.Model):
    name = models.CharField(_("name"), max_length=200, unique=True)
    short_name = models.CharField(_("short name"), max_length=40, blank=True)
    slug = models.SlugField(_("slug"), max_length=60, unique=True)
    country = CountryField(_("country"), blank=True)
    website = models.URLField(_("website"), blank=True)
    email = models.EmailField(_("e-mail"), blank=True)
    disciplines = models.ManyToManyField(
        Discipline,
        through="FederationDiscipline",
        related_name="federations",
        verbose_name=_("disciplines"),
    )
    # Public page settings.
    is_public = models.BooleanField(_("public pages"), default=True)
    show_birth_year = models.BooleanField(_("show players' birth years"), default=False)
    show_membership_numbers = models.BooleanField(_("show membership numbers"), default=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("federation")
        verbose_name_plural = _("federations")

    def __str__(self) -> str:
        return self.short_name or self.name


class RatingSystem(models.TextChoices):
    FIBS = "fibs", _("FIBS")
    GLICKO2 = "glicko2", _("Glicko-2")


class FederationDiscipline(models.Model):
    """A discipline a federation rates, with its rating settings."""

    federation = models.ForeignKey(
        Federation,
        on_delete=models.CASCADE,
        related_name="rated_disciplines",
        verbose_name=_("federation"),
    )
    discipline = models.ForeignKey(
        Discipline,
        on_delete=models.PROTECT,
        related_name="federation_links",
        verbose_name=_("discipline"),
    )
    rating_system = models.CharField(
        _("rating system"), max_length=10, choices=RatingSystem.choices, default=RatingSystem.FIBS
    )
    initial_rating = models.DecimalField(
        _("initial rating"), max_digits=7, decimal_places=2, default=1500
    )
    glicko_period_days = models.PositiveSmallIntegerField(
        _("Glicko-2 rating period (days)"), default=30, validators=[MinValueValidator(1)]
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["federation", "discipline"], name="federation_discipline_once"
            )
        ]
        verbose_name = _("rated discipline")
        verbose_name_plural = _("rated disciplines")

    def __str__(self) -> str:
        return f"{self.federation}: {self.discipline}"


class Club(models.Model):
    federation = models.ForeignKey(
        Federation, on_delete=models.PROTECT, related_name="clubs", verbose_name=_("federation")
    )
    name = models.CharField(_("name"), max_length=200)
    slug = models.SlugField(_("slug"), max_length=80)
    city = models.CharField(_("city"), max_length=120)
    address = models.CharField(_("address"), max_length=250, blank=True)
    email = models.EmailField(_("e-mail"), blank=True)
    phone = models.CharField(_("phone"), max_length=40, blank=True)
    website = models.URLField(_("website"), blank=True)
    is_active = models.BooleanField(_("active"), default=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["federation", "slug"], name="club_slug_per_federation"),
            models.UniqueConstraint(fields=["federation", "name"], name="club_name_per_federation"),
        ]
        verbose_name = _("club")
        verbose_name_plural = _("clubs")

    def __str__(self) -> str:
        return f"{self.name} ({self.city})"


class Gender(models.TextChoices):
    FEMALE = "f", _("female")
    MALE = "m", _("male")


class Player(models.Model):
    name_native = models.CharField(_("name (native script)"), max_length=200)
    name_latin = models.CharField(_("name (Latin transliteration)"), max_length=200)
    birth_year = models.PositiveSmallIntegerField(
        _("birth year"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1900), MaxValueValidator(2100)],
    )
    gender = models.CharField(_("gender"), max_length=1, choices=Gender.choices, blank=True)
    country = CountryField(_("country"), blank=True)
    federation = models.ForeignKey(
        Federation,
        on_delete=models.PROTECT,
        related_name="players",
        null=True,
        blank=True,
        verbose_name=_("federation"),
    )
    membership_number = models.CharField(_("membership number"), max_length=40, blank=True)
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="player",
        verbose_name=_("user account"),
    )
    # A merged duplicate stays as a pointer, so old links and exports still resolve.
    merged_into = models.ForeignKey(
        "self",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="merged_duplicates",
        verbose_name=_("merged into"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        ordering = ["name_latin", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["federation", "membership_number"],
                condition=~Q(membership_number=""),
                name="membership_number_per_federation",
            )
        ]
        indexes = [models.Index(fields=["name_latin"]), models.Index(fields=["name_native"])]
        verbose_name = _("player")
        verbose_name_plural = _("players")

    def __str__(self) -> str:
        return display_name(self.name_native, self.name_latin)

    @property
    def shows_latin(self) -> bool:
        """Whether pages show the Latin name beside the native one: not when the two
        differ only by case and accents ("Mustafa Yılmaz" / "Mustafa Yilmaz")."""
        return latin_adds(self.name_native, self.name_latin)

    @property
    def is_active(self) -> bool:
        return self.merged_into_id is None


class MembershipQuerySet(models.QuerySet["Membership"]):
    def current(self, on: datetime.date | None = None) -> MembershipQuerySet:
        day = on or datetime.date.today()
        return self.filter(start__lte=day).filter(Q(end__isnull=True) | Q(end__gte=day))


class Membership(models.Model):
    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="memberships", verbose_name=_("player")
    )
    club = models.ForeignKey(
        Club, on_delete=models.PROTECT, related_name="memberships", verbose_name=_("club")
    )
    start = models.DateField(_("from"))
    end = models.DateField(_("to"), null=True, blank=True)

    objects = MembershipQuerySet.as_manager()

    class Meta:
        ordering = ["-start", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(end__isnull=True) | Q(end__gte=models.F("start")),
                name="membership_ends_after_start",
            )
        ]
        verbose_name = _("membership")
        verbose_name_plural = _("memberships")

    def __str__(self) -> str:
        return f"{self.player} @ {self.club}"


class Role(models.TextChoices):
    FEDERATION_ADMIN = "federation_admin", _("federation admin")
    CLUB_ADMIN = "club_admin", _("club admin")
    ORGANIZER = "organizer", _("tournament organizer")
    ARBITER = "arbiter", _("arbiter")


class RoleAssignment(models.Model):
    """A user's role over one object: a federation, a club or a tournament."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="role_assignments",
        verbose_name=_("user"),
    )
    role = models.CharField(_("role"), max_length=20, choices=Role.choices)
    scope_type = models.ForeignKey(
        ContentType, on_delete=models.CASCADE, verbose_name=_("scope type")
    )
    scope_id = models.PositiveBigIntegerField(verbose_name=_("scope ID"))
    scope = GenericForeignKey("scope_type", "scope_id")
    granted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("granted by"),
    )
    granted_at = models.DateTimeField(auto_now_add=True, verbose_name=_("granted at"))

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "role", "scope_type", "scope_id"], name="role_once_per_scope"
            )
        ]
        indexes = [models.Index(fields=["scope_type", "scope_id"])]
        verbose_name = _("role assignment")
        verbose_name_plural = _("role assignments")

    def __str__(self) -> str:
        return f"{self.user} — {self.get_role_display()}: {self.scope}"


class ClaimStatus(models.TextChoices):
    PENDING = "pending", _("pending")
    APPROVED = "approved", _("approved")
    REJECTED = "rejected", _("rejected")


class ProfileClaim(models.Model):
    """A user's request to be linked to an existing player profile."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="profile_claims",
        verbose_name=_("user"),
    )
    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="claims", verbose_name=_("player")
    )
    message = models.TextField(_("message"), blank=True)
    status = models.CharField(
        _("status"), max_length=10, choices=ClaimStatus.choices, default=ClaimStatus.PENDING
    )
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("decided by"),
    )
    decided_at = models.DateTimeField(null=True, blank=True, verbose_name=_("decided at"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "player"],
                condition=Q(status="pending"),
                name="one_pending_claim_per_user_and_player",
            )
        ]
        verbose_name = _("profile claim")
        verbose_name_plural = _("profile claims")

    def __str__(self) -> str:
        return f"{self.user} → {self.player} ({self.get_status_display()})"


class AuditEntry(models.Model):
    """Who changed what, when, with the values before and after."""

    at = models.DateTimeField(_("when"), auto_now_add=True, db_index=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("who"),
    )
    action = models.CharField(_("action"), max_length=40)
    target_type = models.ForeignKey(
        ContentType, on_delete=models.CASCADE, verbose_name=_("object type")
    )
    target_id = models.PositiveBigIntegerField(verbose_name=_("object ID"))
    target_repr = models.CharField(_("object"), max_length=250)
    # The federation whose admins may read this entry.
    federation = models.ForeignKey(
        Federation,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("federation"),
    )
    before = models.JSONField(_("before"), null=True, blank=True)
    after = models.JSONField(_("after"), null=True, blank=True)

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["target_type", "target_id"])]
        verbose_name = _("audit entry")
        verbose_name_plural = _("audit log")

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.actor}: {self.action} {self.target_repr}"


class TokenScope(models.TextChoices):
    READ = "read", _("read")
    WRITE = "write", _("read and write")


class TokenKind(models.TextChoices):
    PERSONAL = "personal", _("personal")
    ROLE = "role", _("integration")


class ApiToken(models.Model):
    """A credential for the API (clubs.tokens): ``zary_<prefix>_<secret>``, of which
    only the prefix (to find the row) and the SHA-256 of the whole text are kept.

    A personal token acts as its owner; an integration token ("role") belongs to a
    service account made for it, which holds one role over one scope (kept here too,
    so that whoever may grant that role there may list and revoke the token)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="api_tokens",
        verbose_name=_("user"),
    )
    kind = models.CharField(
        _("kind"), max_length=10, choices=TokenKind.choices, default=TokenKind.PERSONAL
    )
    name = models.CharField(_("name"), max_length=100)
    scope = models.CharField(
        _("access"), max_length=10, choices=TokenScope.choices, default=TokenScope.READ
    )
    prefix = models.CharField(_("prefix"), max_length=16, unique=True)
    key_hash = models.CharField(_("key hash"), max_length=64)
    # An integration token's role and the object it is held over.
    role = models.CharField(_("role"), max_length=20, choices=Role.choices, blank=True)
    role_scope_type = models.ForeignKey(
        ContentType,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("role scope type"),
    )
    role_scope_id = models.PositiveBigIntegerField(_("role scope ID"), null=True, blank=True)
    role_scope = GenericForeignKey("role_scope_type", "role_scope_id")
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("created by"),
    )
    expires_at = models.DateTimeField(_("expires at"), null=True, blank=True)
    last_used_at = models.DateTimeField(_("last used at"), null=True, blank=True)
    revoked_at = models.DateTimeField(_("revoked at"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["role_scope_type", "role_scope_id"])]
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")

    def __str__(self) -> str:
        return f"{self.name} (zary_{self.prefix}_…)"

    def is_expired(self, at: datetime.datetime) -> bool:
        return self.expires_at is not None and self.expires_at <= at
