"""Who may do what: the one place where permissions are decided.

Every write action has a named rule, ``can(user, action, obj)``.  Services
call ``require`` before changing anything, and the web admin, the pages and
the API ask ``can`` to show or refuse the same actions, so the three never
disagree.  Higher apps (tournaments, games) register their own actions with
``register`` from their ``AppConfig.ready``; they may use the role helpers
below.

Roles: the site admin (a superuser) may do everything; a federation admin
acts on their federation, its clubs, players, ratings and publications; a
club admin on their club and its members; an organizer or arbiter on the
tournaments they are given (rules registered by the tournaments app); a
player on their own profile.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied
from django.db import models
from django.utils.translation import gettext as _

from clubs.models import (
    ClaimStatus,
    Club,
    Federation,
    Membership,
    Player,
    ProfileClaim,
    Role,
    RoleAssignment,
)

UserLike = AbstractBaseUser | AnonymousUser
Rule = Callable[[Any, Any], bool]

_RULES: dict[str, Rule] = {}
# Rules that state eligibility rather than authority: site admins get no pass.
_NO_BYPASS: set[str] = set()


def register(action: str, *, superuser_bypass: bool = True) -> Callable[[Rule], Rule]:
    def decorator(rule: Rule) -> Rule:
        if action in _RULES and _RULES[action] is not rule:
            raise ValueError(f"permission rule {action!r} is already registered")
        _RULES[action] = rule
        if not superuser_bypass:
            _NO_BYPASS.add(action)
        return rule

    return decorator


_EXTENSIONS: dict[str, list[Rule]] = {}


def extend(action: str, rule: Rule) -> Rule:
    """Let a higher app grant ``action`` in more cases (e.g. a tournament's arbiters);
    the action is allowed when its own rule or any extension allows it."""
    if rule not in _EXTENSIONS.setdefault(action, []):
        _EXTENSIONS[action].append(rule)
    return rule


def actions() -> list[str]:
    return sorted(_RULES)


# --- The second factor (clubs.second_factor): an official signed in without it acts
# as a plain user.  The mark is set per request by its middleware (a session that
# did not give a code) and by the API's Basic authentication (a password alone); an
# API token is a second factor of its own (``_zary_second_factor = "token"``).


def powers_withheld(user: Any) -> bool:
    """Whether ``user``'s roles and site-admin powers are withheld for this request."""
    return bool(getattr(user, "_zary_powers_withheld", False)) and (
        getattr(user, "_zary_second_factor", None) != "token"
    )


def is_site_admin(user: Any) -> bool:
    """A signed-in, active superuser whose powers are not withheld: every check of
    ``is_superuser`` in product code goes through here."""
    return bool(
        user is not None
        and user.is_authenticated
        and user.is_active
        and getattr(user, "is_superuser", False)
        and not powers_withheld(user)
    )


def is_official(user: Any) -> bool:
    """Whether ``user`` holds powers that need a second factor: staff or site admin,
    or any role (federation, club admin, organizer, arbiter).  Club admins count:
    they read and change players' private data.  Asked regardless of the mark."""
    if user is None or not user.is_authenticated:
        return False
    if getattr(user, "is_staff", False) or getattr(user, "is_superuser", False):
        return True
    return RoleAssignment.objects.filter(user=user).exists()


def can(user: UserLike | None, action: str, obj: Any = None) -> bool:
    if action not in _RULES:
        raise ValueError(f"unknown permission action {action!r}")
    if user is None or not user.is_authenticated or not user.is_active:
        return False
    if action not in _NO_BYPASS and is_site_admin(user):
        return True
    return bool(_RULES[action](user, obj)) or any(
        rule(user, obj) for rule in _EXTENSIONS.get(action, ())
    )


def require(user: UserLike | None, action: str, obj: Any = None) -> None:
    """Raise PermissionDenied unless ``user`` may do ``action`` on ``obj``.

    ``user`` None means the system itself (a task, a management command).
    """
    if user is None:
        return
    if not can(user, action, obj):
        raise PermissionDenied(
            _("You are not allowed to do this: %(action)s.") % {"action": action}
        )


# --- Role look-ups, cached on the user object for the length of a request.


def _assignments(user: Any) -> frozenset[tuple[str, int, int]]:
    if powers_withheld(user):
        return frozenset()
    cached = getattr(user, "_zary_roles", None)
    if cached is None:
        cached = frozenset(
            RoleAssignment.objects.filter(user=user).values_list(
                "role", "scope_type_id", "scope_id"
            )
        )
        user._zary_roles = cached
    return cached


def forget_roles(user: Any) -> None:
    """Drop the cached roles (after a grant or revoke in the same request)."""
    if hasattr(user, "_zary_roles"):
        del user._zary_roles


def has_role(user: Any, role: str, scope: models.Model) -> bool:
    type_id = ContentType.objects.get_for_model(type(scope)).id
    return (role, type_id, scope.pk) in _assignments(user)


def scope_ids(user: Any, role: str, model: type[models.Model]) -> set[int]:
    """The ids of ``model`` objects over which ``user`` holds ``role``."""
    type_id = ContentType.objects.get_for_model(model).id
    return {scope for r, t, scope in _assignments(user) if r == role and t == type_id}


def is_federation_admin(user: Any, federation: Federation | None) -> bool:
    return federation is not None and has_role(user, Role.FEDERATION_ADMIN, federation)


def is_club_admin(user: Any, club: Club | None) -> bool:
    return club is not None and has_role(user, Role.CLUB_ADMIN, club)


def administered_clubs(user: Any) -> models.QuerySet[Club]:
    """Clubs the user administers directly or through their federation."""
    return Club.objects.filter(
        models.Q(id__in=scope_ids(user, Role.CLUB_ADMIN, Club))
        | models.Q(federation_id__in=scope_ids(user, Role.FEDERATION_ADMIN, Federation))
    )


def _player_clubs(player: Player) -> list[Club]:
    return [
        m.club for m in Membership.objects.current().filter(player=player).select_related("club")
    ]


def manages_player(user: Any, player: Player) -> bool:
    if is_federation_admin(user, player.federation):
        return True
    return any(
        is_club_admin(user, club) or is_federation_admin(user, club.federation)
        for club in _player_clubs(player)
    )


# --- Rules.  Site admins pass every rule in ``can``; these decide everyone else.


@register("federation.create")
def _federation_create(user: Any, obj: None) -> bool:
    return False


@register("federation.change")
def _federation_change(user: Any, federation: Federation) -> bool:
    return is_federation_admin(user, federation)


@register("federation.delete")
def _federation_delete(user: Any, federation: Federation) -> bool:
    return False


@register("federation.view_audit")
def _federation_audit(user: Any, federation: Federation) -> bool:
    return is_federation_admin(user, federation)


@register("federation.import")
def _federation_import(user: Any, federation: Federation) -> bool:
    return is_federation_admin(user, federation)


@register("club.create")
def _club_create(user: Any, federation: Federation) -> bool:
    return is_federation_admin(user, federation)


@register("club.change")
def _club_change(user: Any, club: Club) -> bool:
    return is_federation_admin(user, club.federation) or is_club_admin(user, club)


@register("club.delete")
def _club_delete(user: Any, club: Club) -> bool:
    return is_federation_admin(user, club.federation)


@register("player.create")
def _player_create(user: Any, scope: Federation | Club) -> bool:
    """A federation admin adds players to the federation, a club admin to the club."""
    if isinstance(scope, Club):
        return is_club_admin(user, scope) or is_federation_admin(user, scope.federation)
    return is_federation_admin(user, scope)


@register("player.change")
def _player_change(user: Any, player: Player) -> bool:
    return (player.user_id is not None and player.user_id == user.pk) or manages_player(
        user, player
    )


@register("player.delete")
def _player_delete(user: Any, player: Player) -> bool:
    return is_federation_admin(user, player.federation)


@register("player.merge")
def _player_merge(user: Any, player: Player) -> bool:
    return is_federation_admin(user, player.federation)


@register("player.claim", superuser_bypass=False)
def _player_claim(user: Any, player: Player) -> bool:
    """Any signed-in user without a profile may ask for an unclaimed one."""
    return player.user_id is None and not Player.objects.filter(user=user).exists()


@register("claim.decide")
def _claim_decide(user: Any, claim: ProfileClaim) -> bool:
    return manages_player(user, claim.player)


@register("membership.change")
def _membership_change(user: Any, club: Club) -> bool:
    """Add, edit or end a membership of ``club``."""
    return is_club_admin(user, club) or is_federation_admin(user, club.federation)


@register("role.grant")
def _role_grant(user: Any, target: tuple[str, models.Model]) -> bool:
    """Federation admins appoint club admins of their clubs; only site admins
    appoint federation admins.  Tournament roles are ruled by the tournaments app."""
    role, scope = target
    if role == Role.CLUB_ADMIN and isinstance(scope, Club):
        return is_federation_admin(user, scope.federation)
    if role in (Role.ORGANIZER, Role.ARBITER):
        rule = _RULES.get("tournament.staff")
        return bool(rule and rule(user, scope))
    return False


# --- Read-side helpers for pages and the API (one query or none each; no new rules).


def visible_federations(user: Any) -> models.QuerySet[Federation]:
    """Federations whose clubs, players and memberships ``user`` may read.

    Everyone reads public federations; a signed-in user also reads the
    federations they administer, those of the clubs they administer and their
    own player's federation; site admins read everything.
    """
    if is_site_admin(user):
        return Federation.objects.all()
    visible = models.Q(is_public=True)
    if user is not None and user.is_authenticated and user.is_active:
        club_ids = scope_ids(user, Role.CLUB_ADMIN, Club)
        visible |= models.Q(id__in=scope_ids(user, Role.FEDERATION_ADMIN, Federation))
        if club_ids:
            visible |= models.Q(id__in=Club.objects.filter(id__in=club_ids).values("federation_id"))
        visible |= models.Q(id__in=Player.objects.filter(user=user).values("federation_id"))
    return Federation.objects.filter(visible)


def private_data_federation_ids(user: Any) -> set[int] | None:
    """Federations whose hidden player data (birth years and membership numbers
    a federation chose not to publish) ``user`` may read; None means all.

    Their admins may; everyone else sees only what the federation publishes
    (and a player their own data, see ``sees_private_player_data``).
    """
    if user is None or not user.is_authenticated or not user.is_active:
        return set()
    if is_site_admin(user):
        return None
    return scope_ids(user, Role.FEDERATION_ADMIN, Federation)


def sees_private_player_data(user: Any, player: Player) -> bool:
    if user is not None and user.is_authenticated and player.user_id == user.pk:
        return True
    ids = private_data_federation_ids(user)
    return ids is None or (player.federation_id is not None and player.federation_id in ids)


def decides_claims(user: Any) -> bool:
    """Whether ``user`` holds a role that lets them decide some profile claims."""
    if user is None or not user.is_authenticated or not user.is_active:
        return False
    return bool(
        is_site_admin(user)
        or scope_ids(user, Role.FEDERATION_ADMIN, Federation)
        or scope_ids(user, Role.CLUB_ADMIN, Club)
    )


def claims_to_decide(user: Any) -> models.QuerySet[ProfileClaim]:
    """The pending claims ``user`` may decide: the ``claim.decide`` rule as one query.

    Mirrors ``manages_player``: the admin of the player's federation, or an
    admin (club or federation) of a club the player is a current member of.
    """
    pending = ProfileClaim.objects.filter(status=ClaimStatus.PENDING)
    if not decides_claims(user):
        return pending.none()
    if is_site_admin(user):
        return pending
    federation_ids = scope_ids(user, Role.FEDERATION_ADMIN, Federation)
    club_ids = scope_ids(user, Role.CLUB_ADMIN, Club)
    managed = (
        Membership.objects.current()
        .filter(models.Q(club_id__in=club_ids) | models.Q(club__federation_id__in=federation_ids))
        .values("player_id")
    )
    return pending.filter(
        models.Q(player__federation_id__in=federation_ids) | models.Q(player_id__in=managed)
    )


# --- The web admin: what each staff user may list (the rules above as querysets).
# Added for clubs/admin/; they mirror the ``*.change`` and ``player.view`` rules.


@register("player.view")
def _player_view(user: Any, player: Player) -> bool:
    """Staff reading: the federation's admins, and admins of any club the player
    belongs or belonged to (a club keeps its past members' records)."""
    if is_federation_admin(user, player.federation):
        return True
    return Membership.objects.filter(
        player=player, club__in=administered_clubs(user).values("id")
    ).exists()


@register("discipline.change")
def _discipline_change(user: Any, discipline: Any) -> bool:
    """The discipline catalogue is shared by every federation: site admins only."""
    return False


@register("user.reset_second_factor")
def _reset_second_factor(user: Any, target: Any) -> bool:
    """Removing someone's second factor (a lost phone) hands their account to whoever
    holds the password: site admins only, from the web admin."""
    return False


def is_staff_admin(user: Any) -> bool:
    """Whether ``user`` administers anything here (a site, federation or club admin)."""
    if user is None or not user.is_authenticated or not user.is_active:
        return False
    return bool(
        is_site_admin(user)
        or scope_ids(user, Role.FEDERATION_ADMIN, Federation)
        or scope_ids(user, Role.CLUB_ADMIN, Club)
    )


def admin_federations(user: Any) -> models.QuerySet[Federation]:
    """Federations ``user`` administers (``federation.change``)."""
    if is_site_admin(user):
        return Federation.objects.all()
    return Federation.objects.filter(id__in=scope_ids(user, Role.FEDERATION_ADMIN, Federation))


def admin_clubs(user: Any) -> models.QuerySet[Club]:
    """Clubs ``user`` administers (``club.change``)."""
    return Club.objects.all() if is_site_admin(user) else administered_clubs(user)


def admin_players(user: Any) -> models.QuerySet[Player]:
    """Players ``user`` may read in the admin (``player.view``)."""
    if is_site_admin(user):
        return Player.objects.all()
    members = Membership.objects.filter(club__in=administered_clubs(user).values("id"))
    return Player.objects.filter(
        models.Q(federation_id__in=scope_ids(user, Role.FEDERATION_ADMIN, Federation))
        | models.Q(id__in=members.values("player_id"))
    )


def admin_memberships(user: Any) -> models.QuerySet[Membership]:
    """Memberships of the clubs ``user`` administers (``membership.change``)."""
    if is_site_admin(user):
        return Membership.objects.all()
    return Membership.objects.filter(club__in=administered_clubs(user).values("id"))


def admin_claims(user: Any) -> models.QuerySet[ProfileClaim]:
    """Profile claims (decided or not) of the players ``user`` manages (``claim.decide``)."""
    if is_site_admin(user):
        return ProfileClaim.objects.all()
    federation_ids = scope_ids(user, Role.FEDERATION_ADMIN, Federation)
    managed = (
        Membership.objects.current()
        .filter(club__in=administered_clubs(user).values("id"))
        .values("player_id")
    )
    return ProfileClaim.objects.filter(
        models.Q(player__federation_id__in=federation_ids) | models.Q(player_id__in=managed)
    )


def admin_role_assignments(user: Any) -> models.QuerySet[RoleAssignment]:
    """Role assignments ``user`` may revoke (``role.grant``): club admins of the clubs
    of their federations.  Tournament roles are managed by the tournaments app."""
    if is_site_admin(user):
        return RoleAssignment.objects.all()
    clubs = Club.objects.filter(
        federation_id__in=scope_ids(user, Role.FEDERATION_ADMIN, Federation)
    ).values("id")
    return RoleAssignment.objects.filter(
        role=Role.CLUB_ADMIN,
        scope_type=ContentType.objects.get_for_model(Club),
        scope_id__in=clubs,
    )


def admin_audit_federation_ids(user: Any) -> set[int] | None:
    """Federations whose audit log ``user`` reads (``federation.view_audit``); None: all."""
    if is_site_admin(user):
        return None
    return scope_ids(user, Role.FEDERATION_ADMIN, Federation)


def managed_players(user: Any) -> models.QuerySet[Player]:
    """Active players ``user`` manages (``manages_player`` as one query): the
    players of the federations they administer and the current members of the
    clubs they administer directly or through their federation.  Added for the
    games pages (staff arranging matches)."""
    active = Player.objects.filter(merged_into__isnull=True)
    if user is None or not user.is_authenticated or not user.is_active:
        return active.none()
    if is_site_admin(user):
        return active
    members = Membership.objects.current().filter(club__in=administered_clubs(user).values("id"))
    return active.filter(
        models.Q(federation_id__in=scope_ids(user, Role.FEDERATION_ADMIN, Federation))
        | models.Q(id__in=members.values("player_id"))
    )
