"""Every change to federations, clubs, players, memberships and roles.

Each function checks the actor's permission (``by`` None = the system), does
its work in one transaction and writes the audit log.  Views, the admin, the
API, imports and commands all come through here.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping
from typing import Any

from django.contrib.auth import get_user_model, password_validation
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.db import IntegrityError, models, transaction
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _

from base import locking, pagecache
from clubs import merging, permissions
from clubs.events import names_changed, player_merged
from clubs.models import (
    AuditEntry,
    ClaimStatus,
    Club,
    Discipline,
    Federation,
    FederationDiscipline,
    Membership,
    Player,
    ProfileClaim,
    Role,
    RoleAssignment,
)

PLAYER_FIELDS = (
    "name_native",
    "name_latin",
    "birth_year",
    "gender",
    "country",
    "federation",
    "membership_number",
)
CLUB_FIELDS = ("name", "slug", "city", "address", "email", "phone", "website", "is_active")
FEDERATION_FIELDS = (
    "name",
    "short_name",
    "slug",
    "country",
    "website",
    "email",
    "is_public",
    "show_birth_year",
    "show_membership_numbers",
)


# --- Audit


def snapshot(obj: models.Model) -> dict[str, Any]:
    """The object's own field values, JSON-safe (foreign keys by id); automatic
    timestamps are left out, they are the audit entry's own ``at``."""
    data: dict[str, Any] = {}
    for field in obj._meta.concrete_fields:
        if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
            continue
        value = getattr(obj, field.attname)
        if isinstance(value, datetime.date | datetime.datetime):
            value = value.isoformat()
        elif value is not None and not isinstance(value, bool | int | float | str):
            value = str(value)
        data[field.attname] = value
    return data


def audit(
    by: Any,
    action: str,
    target: models.Model,
    *,
    federation: Federation | None,
    before: Mapping[str, Any] | None,
    after: Mapping[str, Any] | None,
) -> AuditEntry:
    return AuditEntry.objects.create(
        actor=by if by is not None and by.is_authenticated else None,
        action=action,
        target_type=ContentType.objects.get_for_model(type(target)),
        target_id=target.pk,
        target_repr=str(target)[:250],
        federation=federation,
        before=dict(before) if before is not None else None,
        after=dict(after) if after is not None else None,
    )


def _changes(
    before: Mapping[str, Any], after: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    keys = [key for key in after if before.get(key) != after.get(key)]
    return {k: before.get(k) for k in keys}, {k: after[k] for k in keys}


def _apply(obj: models.Model, fields: Iterable[str], values: Mapping[str, Any]) -> None:
    unknown = set(values) - set(fields)
    if unknown:
        raise ValidationError(
            _("Unknown fields: %(fields)s") % {"fields": ", ".join(sorted(unknown))}
        )
    for name, value in values.items():
        setattr(obj, name, value)


def _save_validated(obj: models.Model) -> None:
    obj.full_clean()
    try:
        with transaction.atomic():
            obj.save()
    except IntegrityError as error:  # a race past full_clean's uniqueness check
        raise ValidationError(str(error)) from error


# --- Federations and clubs


@transaction.atomic
def create_federation(*, by: Any, **values: Any) -> Federation:
    permissions.require(by, "federation.create")
    federation = Federation()
    _apply(federation, FEDERATION_FIELDS, values)
    if not federation.slug:
        federation.slug = slugify(federation.short_name or federation.name)[:60]
    _save_validated(federation)
    return federation


@transaction.atomic
def update_federation(federation: Federation, *, by: Any, **values: Any) -> Federation:
    permissions.require(by, "federation.change", federation)
    _apply(federation, FEDERATION_FIELDS, values)
    _save_validated(federation)
    # Its public pages show its name and exist only while it is public.
    pagecache.expire_on_commit("federation", federation.pk)
    return federation


@transaction.atomic
def create_club(federation: Federation, *, by: Any, **values: Any) -> Club:
    permissions.require(by, "club.create", federation)
    club = Club(federation=federation)
    _apply(club, CLUB_FIELDS, values)
    if not club.slug:
        club.slug = (
            slugify(club.name, allow_unicode=False)[:80] or f"club-{federation.clubs.count() + 1}"
        )
    _save_validated(club)
    audit(by, "club.create", club, federation=federation, before=None, after=snapshot(club))
    return club


@transaction.atomic
def update_club(club: Club, *, by: Any, **values: Any) -> Club:
    permissions.require(by, "club.change", club)
    before = snapshot(club)
    _apply(club, CLUB_FIELDS, values)
    _save_validated(club)
    old, new = _changes(before, snapshot(club))
    if new:
        audit(by, "club.change", club, federation=club.federation, before=old, after=new)
        names_changed.send(player_ids=[], club_ids=[club.pk])
    return club


# --- Players


@transaction.atomic
def create_player(*, by: Any, club: Club | None = None, **values: Any) -> Player:
    """A new player, in a federation (``federation=``) and optionally a club from today."""
    federation = values.get("federation") or (club.federation if club else None)
    scope = club if club is not None else federation
    if scope is None:
        permissions.require(by, "federation.create")  # a federation-less player: site admins
    else:
        permissions.require(by, "player.create", scope)
    player = Player()
    _apply(player, PLAYER_FIELDS, {**values, "federation": federation})
    _save_validated(player)
    audit(by, "player.create", player, federation=federation, before=None, after=snapshot(player))
    if club is not None:
        add_membership(player, club, by=by, start=timezone.localdate())
    return player


# What the federation keeps about a player: the player reads these, only the
# federation's or the club's admins change them (a player who could set their own
# membership number or federation could pass for someone else).  Merges and the
# linked account have services of their own and are never plain field edits.
FEDERATION_KEPT_FIELDS = ("federation", "membership_number")


def refuse_federation_kept_changes(player: Player, *, by: Any, values: Mapping[str, Any]) -> None:
    """A ValidationError naming each federation-kept field ``by`` may not change
    (sending the current value back, as a PUT does, is no change)."""
    if permissions.is_site_admin(by) or permissions.manages_player(by, player):
        return
    refused = {}
    for name in FEDERATION_KEPT_FIELDS:
        if name in values and values[name] != getattr(player, name):
            label = Player._meta.get_field(name).verbose_name
            refused[name] = [
                _(
                    "The field “%(field)s” is kept by the federation: only its admins "
                    "or the admins of the player's club may change it."
                )
                % {"field": label}
            ]
    if refused:
        raise ValidationError(refused)


@transaction.atomic
def update_player(player: Player, *, by: Any, **values: Any) -> Player:
    permissions.require(by, "player.change", player)
    refuse_federation_kept_changes(player, by=by, values=values)
    if "federation" in values and values["federation"] != player.federation:
        # Moving a player between federations is a federation admin's act on both sides.
        permissions.require(by, "player.delete", player)
        if values["federation"] is not None:
            permissions.require(by, "player.create", values["federation"])
    before = snapshot(player)
    _apply(player, PLAYER_FIELDS, values)
    _save_validated(player)
    old, new = _changes(before, snapshot(player))
    if new:
        audit(by, "player.change", player, federation=player.federation, before=old, after=new)
        names_changed.send(player_ids=[player.pk], club_ids=[])
    return player


# --- Memberships


@transaction.atomic
def add_membership(
    player: Player,
    club: Club,
    *,
    by: Any,
    start: datetime.date,
    end: datetime.date | None = None,
) -> Membership:
    permissions.require(by, "membership.change", club)
    if end is not None and end < start:
        raise ValidationError(_("A membership cannot end before it starts."))
    overlapping = Membership.objects.filter(player=player, club=club).filter(
        models.Q(end__isnull=True) | models.Q(end__gte=start)
    )
    if end is not None:
        overlapping = overlapping.filter(start__lte=end)
    if overlapping.exists():
        raise ValidationError(
            _("%(player)s is already a member of %(club)s in that period.")
            % {"player": player, "club": club}
        )
    membership = Membership.objects.create(player=player, club=club, start=start, end=end)
    names_changed.send(player_ids=[player.pk], club_ids=[club.pk])
    audit(
        by,
        "membership.create",
        membership,
        federation=club.federation,
        before=None,
        after=snapshot(membership),
    )
    return membership


@transaction.atomic
def end_membership(membership: Membership, *, by: Any, end: datetime.date) -> Membership:
    permissions.require(by, "membership.change", membership.club)
    if membership.end is not None:
        raise ValidationError(_("This membership has already ended."))
    if end < membership.start:
        raise ValidationError(_("A membership cannot end before it starts."))
    before = snapshot(membership)
    membership.end = end
    membership.save(update_fields=["end"])
    names_changed.send(player_ids=[membership.player_id], club_ids=[membership.club_id])
    audit(
        by,
        "membership.end",
        membership,
        federation=membership.club.federation,
        before={"end": before["end"]},
        after={"end": end.isoformat()},
    )
    return membership


# --- Roles


def _scope_federation(scope: models.Model) -> Federation | None:
    if isinstance(scope, Federation):
        return scope
    federation = getattr(scope, "federation", None)
    return federation if isinstance(federation, Federation) else None


@transaction.atomic
def grant_role(user: Any, role: str, scope: models.Model, *, by: Any) -> RoleAssignment:
    if role not in Role.values:
        raise ValidationError(_("Unknown role: %(role)s") % {"role": role})
    permissions.require(by, "role.grant", (role, scope))
    assignment, created = RoleAssignment.objects.get_or_create(
        user=user,
        role=role,
        scope_type=ContentType.objects.get_for_model(type(scope)),
        scope_id=scope.pk,
        defaults={"granted_by": by if by is not None and by.is_authenticated else None},
    )
    if created:
        if not user.is_staff:
            # Staff status lets them into the web admin; what they see there is by role.
            user.is_staff = True
            user.save(update_fields=["is_staff"])
        audit(
            by,
            "role.grant",
            assignment,
            federation=_scope_federation(scope),
            before=None,
            after={"user": user.pk, "role": role, "scope": str(scope)},
        )
        permissions.forget_roles(user)
    return assignment


@transaction.atomic
def revoke_role(assignment: RoleAssignment, *, by: Any) -> None:
    scope = assignment.scope
    permissions.require(by, "role.grant", (assignment.role, scope))
    audit(
        by,
        "role.revoke",
        assignment,
        federation=_scope_federation(scope) if scope is not None else None,
        before={"user": assignment.user_id, "role": assignment.role, "scope": str(scope)},
        after=None,
    )
    user = assignment.user
    assignment.delete()
    permissions.forget_roles(user)


# --- Profile claims


@transaction.atomic
def claim_profile(player: Player, *, by: Any, message: str = "") -> ProfileClaim:
    if by is None or not by.is_authenticated:
        raise ValidationError(_("Sign in to claim a profile."))
    if not permissions.can(by, "player.claim", player):
        raise ValidationError(
            _("This profile cannot be claimed: it is linked already, or you have one.")
        )
    if ProfileClaim.objects.filter(user=by, player=player, status=ClaimStatus.PENDING).exists():
        raise ValidationError(_("Your claim of this profile is already waiting for approval."))
    return ProfileClaim.objects.create(user=by, player=player, message=message)


@transaction.atomic
def decide_claim(claim: ProfileClaim, *, by: Any, approve: bool) -> ProfileClaim:
    permissions.require(by, "claim.decide", claim)
    # The player before the claim (base.locking): a merge locks the players, then moves
    # their claims.
    player_id = ProfileClaim.objects.values_list("player_id", flat=True).get(pk=claim.pk)
    player: Player = locking.row(Player.objects, pk=player_id)
    claim = locking.row(ProfileClaim.objects, pk=claim.pk)
    if claim.player_id != player.pk:
        raise locking.Busy()  # a merge moved the claim meanwhile: decided on the survivor next time
    if claim.status != ClaimStatus.PENDING:
        raise ValidationError(_("This claim has been decided already."))
    if approve and player.user_id is not None:
        raise ValidationError(_("This profile is linked to another account already."))
    if approve and Player.objects.filter(user_id=claim.user_id).exists():
        raise ValidationError(_("That account is linked to another profile already."))
    claim.status = ClaimStatus.APPROVED if approve else ClaimStatus.REJECTED
    claim.decided_by = by if by is not None and by.is_authenticated else None
    claim.decided_at = timezone.now()
    claim.save(update_fields=["status", "decided_by", "decided_at"])
    if approve:
        before = {"user": player.user_id}
        player.user_id = claim.user_id
        player.save(update_fields=["user", "updated_at"])
        audit(
            by,
            "player.link_user",
            player,
            federation=player.federation,
            before=before,
            after={"user": claim.user_id},
        )
        # Other pending claims of this profile can no longer succeed.
        ProfileClaim.objects.filter(player=player, status=ClaimStatus.PENDING).update(
            status=ClaimStatus.REJECTED, decided_by=claim.decided_by, decided_at=claim.decided_at
        )
    return claim


# --- Duplicates and merging


@transaction.atomic
def merge_players(survivor: Player, duplicate: Player, *, by: Any) -> Player:
    """Move all of ``duplicate``'s history onto ``survivor`` and retire it.

    Every foreign key to Player, in this app or any app above it, is moved
    generically, so later apps' history (matches, entries, ratings) follows
    without this app importing them.  Before the move, ``player_merged`` is
    sent (its subscribers read the duplicate's history as it was and queue
    what follows, e.g. recomputing ratings) and then the ``merging`` folds run
    (an app whose rows cannot simply be moved, a unique row per player, folds
    them at once).  Both players are locked first, then the rows are moved
    kind by kind in the lock order (``base.locking``); a row someone else
    holds past the lock timeout makes the merge ``Busy`` (try again).
    """
    if survivor.pk == duplicate.pk:
        raise ValidationError(_("A player cannot be merged into themself."))
    permissions.require(by, "player.merge", survivor)
    permissions.require(by, "player.merge", duplicate)
    both: list[Player] = locking.rows(Player.objects.filter(pk__in=(survivor.pk, duplicate.pk)))
    locked = {p.pk: p for p in both}
    if len(locked) < 2:
        raise Player.DoesNotExist("A player to merge was deleted meanwhile.")
    survivor, duplicate = locked[survivor.pk], locked[duplicate.pk]
    if duplicate.merged_into_id is not None or survivor.merged_into_id is not None:
        raise ValidationError(_("One of these players has been merged already."))
    if survivor.user_id and duplicate.user_id:
        raise ValidationError(_("Both players are linked to user accounts; unlink one first."))
    before = {"survivor": snapshot(survivor), "duplicate": snapshot(duplicate)}
    player_merged.send(survivor_id=survivor.pk, duplicate_id=duplicate.pk)
    names_changed.send(player_ids=[survivor.pk, duplicate.pk], club_ids=[])
    moved: dict[str, int] = {}
    relations = [
        relation
        for relation in Player._meta.related_objects
        if relation.related_model is not Player and (relation.one_to_many or relation.one_to_one)
    ]
    with locking.changing(Player.objects.db):
        merging.fold(survivor.pk, duplicate.pk)
        for relation in sorted(relations, key=lambda r: locking.move_order(r.related_model)):
            field = relation.field
            count = relation.related_model._base_manager.filter(**{field.name: duplicate}).update(
                **{field.name: survivor}
            )
            if count:
                moved[relation.related_model._meta.label] = count
    # Fill the survivor's blanks from the duplicate; the survivor's values win.
    for name in PLAYER_FIELDS:
        if getattr(survivor, name) in ("", None) and getattr(duplicate, name) not in ("", None):
            setattr(survivor, name, getattr(duplicate, name))
    if duplicate.user_id and not survivor.user_id:
        survivor.user_id, duplicate.user_id = duplicate.user_id, None
    duplicate.merged_into = survivor
    duplicate.membership_number = ""
    duplicate.save()
    survivor.save()
    audit(
        by,
        "player.merge",
        survivor,
        federation=survivor.federation,
        before=before,
        after={"survivor": snapshot(survivor), "merged": duplicate.pk, "moved": moved},
    )
    return survivor


# --- Deleting (only what has no history: anything with history is deactivated or merged)


def _history(obj: models.Model) -> list[str]:
    """The kinds of rows, in any app, that still point to ``obj``."""
    found = []
    for relation in obj._meta.related_objects:
        if not (relation.one_to_many or relation.one_to_one):
            continue
        manager = relation.related_model._base_manager
        if manager.filter(**{relation.field.name: obj}).exists():
            found.append(str(relation.related_model._meta.verbose_name_plural))
    return sorted(found)


@transaction.atomic
def delete_club(club: Club, *, by: Any) -> None:
    permissions.require(by, "club.delete", club)
    history = _history(club)
    if history:
        raise ValidationError(
            _("%(club)s cannot be deleted, it has history (%(kinds)s); mark it inactive instead.")
            % {"club": club, "kinds": ", ".join(history)}
        )
    audit(by, "club.delete", club, federation=club.federation, before=snapshot(club), after=None)
    club.delete()


@transaction.atomic
def delete_player(player: Player, *, by: Any) -> None:
    permissions.require(by, "player.delete", player)
    if player.user_id is not None:
        raise ValidationError(_("This player is linked to a user account; unlink it first."))
    history = _history(player)
    if history:
        raise ValidationError(
            _(
                "%(player)s cannot be deleted, they have history (%(kinds)s); merge duplicates instead."
            )
            % {"player": player, "kinds": ", ".join(history)}
        )
    audit(
        by,
        "player.delete",
        player,
        federation=player.federation,
        before=snapshot(player),
        after=None,
    )
    player.delete()


# --- Accounts


@transaction.atomic
def create_account(*, username: str, email: str, password: str) -> Any:
    """A new user account from the sign-up page: anyone may sign up, with no role.

    The username and the e-mail address (password resets go there) are
    unique, case-insensitively; the password passes the site's validators.
    """
    user_model = get_user_model()
    email = user_model.objects.normalize_email(email.strip())
    errors: dict[str, list[str]] = {}
    if user_model.objects.filter(username__iexact=username).exists():
        errors["username"] = [_("This username is taken.")]
    if not email:
        errors["email"] = [_("Enter your e-mail address: password resets are sent there.")]
    elif user_model.objects.filter(email__iexact=email).exists():
        errors["email"] = [_("An account with this e-mail address exists already.")]
    user = user_model(username=username, email=email)
    try:
        password_validation.validate_password(password, user)
    except ValidationError as error:
        errors["password"] = list(error.messages)
    if errors:
        raise ValidationError(errors)
    user.set_password(password)
    user.full_clean()
    user.save()
    audit(user, "user.create", user, federation=None, before=None, after={"username": username})
    return user


# --- Used by the web admin (clubs/admin/): memberships' dates, the discipline
# catalogue, a federation's rated disciplines, deleting what has no history.

DISCIPLINE_FIELDS = (
    "code",
    "name",
    "variant",
    "scoring_preset",
    "custom_scoring",
    "cube",
    "variant_options",
)
RATED_DISCIPLINE_FIELDS = ("rating_system", "initial_rating", "glicko_period_days")


@transaction.atomic
def update_membership(
    membership: Membership, *, by: Any, start: datetime.date, end: datetime.date | None
) -> Membership:
    """Correct a membership's dates (to end one today, ``end_membership`` says it better)."""
    permissions.require(by, "membership.change", membership.club)
    if end is not None and end < start:
        raise ValidationError(_("A membership cannot end before it starts."))
    overlapping = (
        Membership.objects.filter(player_id=membership.player_id, club_id=membership.club_id)
        .exclude(pk=membership.pk)
        .filter(models.Q(end__isnull=True) | models.Q(end__gte=start))
    )
    if end is not None:
        overlapping = overlapping.filter(start__lte=end)
    if overlapping.exists():
        raise ValidationError(
            _("%(player)s is already a member of %(club)s in that period.")
            % {"player": membership.player, "club": membership.club}
        )
    before = snapshot(membership)
    membership.start, membership.end = start, end
    membership.save(update_fields=["start", "end"])
    names_changed.send(player_ids=[membership.player_id], club_ids=[membership.club_id])
    old, new = _changes(before, snapshot(membership))
    if new:
        audit(
            by,
            "membership.change",
            membership,
            federation=membership.club.federation,
            before=old,
            after=new,
        )
    return membership


@transaction.atomic
def delete_membership(membership: Membership, *, by: Any) -> None:
    """Remove a membership entered by mistake (a real one that is over is ended instead)."""
    permissions.require(by, "membership.change", membership.club)
    audit(
        by,
        "membership.delete",
        membership,
        federation=membership.club.federation,
        before=snapshot(membership),
        after=None,
    )
    names_changed.send(player_ids=[membership.player_id], club_ids=[membership.club_id])
    membership.delete()


@transaction.atomic
def create_discipline(*, by: Any, **values: Any) -> Discipline:
    permissions.require(by, "discipline.change", None)
    discipline = Discipline()
    _apply(discipline, DISCIPLINE_FIELDS, values)
    _save_validated(discipline)
    audit(
        by,
        "discipline.create",
        discipline,
        federation=None,
        before=None,
        after=snapshot(discipline),
    )
    return discipline


@transaction.atomic
def update_discipline(discipline: Discipline, *, by: Any, **values: Any) -> Discipline:
    permissions.require(by, "discipline.change", discipline)
    before = snapshot(discipline)
    _apply(discipline, DISCIPLINE_FIELDS, values)
    _save_validated(discipline)
    old, new = _changes(before, snapshot(discipline))
    if new:
        audit(by, "discipline.change", discipline, federation=None, before=old, after=new)
        # Every federation's pages may name it (a rare change: all of them are dropped).
        pagecache.expire_on_commit("federation", *Federation.objects.values_list("pk", flat=True))
    return discipline


@transaction.atomic
def delete_discipline(discipline: Discipline, *, by: Any) -> None:
    permissions.require(by, "discipline.change", discipline)
    history = _history(discipline)
    if history:
        raise ValidationError(
            _("%(discipline)s cannot be deleted, it is in use (%(kinds)s).")
            % {"discipline": discipline, "kinds": ", ".join(history)}
        )
    audit(
        by,
        "discipline.delete",
        discipline,
        federation=None,
        before=snapshot(discipline),
        after=None,
    )
    discipline.delete()


@transaction.atomic
def rate_discipline(
    federation: Federation, discipline: Discipline, *, by: Any, **values: Any
) -> FederationDiscipline:
    """Add ``discipline`` to the federation's rated disciplines, or change its settings."""
    permissions.require(by, "federation.change", federation)
    link = FederationDiscipline.objects.filter(
        federation=federation, discipline=discipline
    ).first() or FederationDiscipline(federation=federation, discipline=discipline)
    before = snapshot(link) if link.pk else None
    _apply(link, RATED_DISCIPLINE_FIELDS, values)
    _save_validated(link)
    after = snapshot(link)
    if before is None:
        audit(by, "federation.rate", link, federation=federation, before=None, after=after)
    else:
        old, new = _changes(before, after)
        if new:
            audit(by, "federation.rate", link, federation=federation, before=old, after=new)
    # The federation's rating pages show the discipline's rating system.
    pagecache.expire_on_commit("federation", federation.pk)
    return link


@transaction.atomic
def unrate_discipline(link: FederationDiscipline, *, by: Any) -> None:
    """Stop rating a discipline in a federation (its rating history stays)."""
    permissions.require(by, "federation.change", link.federation)
    audit(
        by,
        "federation.unrate",
        link,
        federation=link.federation,
        before=snapshot(link),
        after=None,
    )
    link.delete()
    # Its rating pages are gone.
    pagecache.expire_on_commit("federation", link.federation_id)


@transaction.atomic
def delete_federation(federation: Federation, *, by: Any) -> None:
    permissions.require(by, "federation.delete", federation)
    history = _history(federation)
    if history:
        raise ValidationError(
            _("%(federation)s cannot be deleted, it has %(kinds)s.")
            % {"federation": federation, "kinds": ", ".join(history)}
        )
    audit(
        by,
        "federation.delete",
        federation,
        federation=None,
        before=snapshot(federation),
        after=None,
    )
    federation.delete()
