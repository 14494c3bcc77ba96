"""API tokens: created, listed, revoked and checked here (README "API tokens").

A token is ``zary_<prefix>_<secret>``: the prefix (8 hex digits) is public, shown in
lists, and finds the row; the secret is 43 random letters and digits (256 bits).
Only SHA-256 of the whole text is stored, so the plain token is shown once, when it
is made.  A fast hash is right for a secret this long (nobody guesses 256 bits by
hashing), and it costs a wrong token nothing, unlike a password hash.

- A personal token acts as its owner, who alone lists and revokes it.
- An integration token belongs to a role, not to a person: it gets a service
  account of its own (no usable password, a recognisable username), which holds
  the role over one scope.  Making one asks the one policy whether the creator may
  grant that role there (``role.grant``); whoever may (now or later) lists and
  revokes it, and it keeps working when its creator loses the role.  Revoking it
  also takes the role away and deactivates the service account.

Each token is read ("read": safe methods only) or read and write ("write"), may
expire, and remembers when it was last used (written at most once a minute).
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import re
import secrets
import string
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, models, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs import permissions, services
from clubs.models import ApiToken, Club, Federation, Role, RoleAssignment, TokenKind, TokenScope

TOKEN_START = "zary"
PREFIX_BYTES = 4  # 8 hex digits
SECRET_LENGTH = 43  # log2(62) * 43 > 256 bits
SECRET_ALPHABET = string.ascii_letters + string.digits
# last_used_at is rewritten at most this often per token: not one write per request.
LAST_USED_PRECISION = datetime.timedelta(minutes=1)
TOKEN_SHAPE = re.compile(
    rf"{TOKEN_START}_(?P<prefix>[0-9a-f]{{{PREFIX_BYTES * 2}}})_[A-Za-z0-9]{{{SECRET_LENGTH}}}"
)
SERVICE_ACCOUNT_START = "integration-"
# Choices the creation forms offer (days; None: never).
EXPIRY_DAYS = (30, 90, 365, None)


class TokenRefused(Exception):
    """A token that authenticates nobody; ``message`` says why, in the user's language."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class NewToken:
    """A token just made: the row, and its plain text, which is never stored."""

    token: ApiToken
    plain: str


def digest(plain: str) -> str:
    return hashlib.sha256(plain.encode("utf-8")).hexdigest()


def _new_secret() -> str:
    return "".join(secrets.choice(SECRET_ALPHABET) for _ in range(SECRET_LENGTH))


def _expiry(expires_in_days: int | None, now: datetime.datetime) -> datetime.datetime | None:
    if expires_in_days is None:
        return None
    if expires_in_days <= 0:
        raise ValidationError(_("A token must be valid for at least a day."))
    return now + datetime.timedelta(days=expires_in_days)


def _clean_name(name: str) -> str:
    name = (name or "").strip()
    if not name:
        raise ValidationError({"name": [_("Give the token a name: what or who uses it.")]})
    if len(name) > ApiToken._meta.get_field("name").max_length:  # type: ignore[union-attr]
        raise ValidationError({"name": [_("The name is too long (at most 100 characters).")]})
    return name


def _clean_scope(scope: str) -> str:
    if scope not in TokenScope.values:
        raise ValidationError({"scope": [_("Choose read, or read and write.")]})
    return scope


def _make(user: Any, *, by: Any, kind: str, name: str, scope: str, **fields: Any) -> NewToken:
    """A row with a fresh prefix (drawn again on the rare collision) and its plain text."""
    for _attempt in range(5):
        prefix = secrets.token_hex(PREFIX_BYTES)
        plain = f"{TOKEN_START}_{prefix}_{_new_secret()}"
        try:
            with transaction.atomic():
                token = ApiToken.objects.create(
                    user=user,
                    kind=kind,
                    name=name,
                    scope=scope,
                    prefix=prefix,
                    key_hash=digest(plain),
                    created_by=by if by is not None and by.is_authenticated else None,
                    **fields,
                )
        except IntegrityError:
            continue
        return NewToken(token, plain)
    raise RuntimeError("no free token prefix after 5 draws")  # 2**32 prefixes: never


def _audit_fields(token: ApiToken) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "name": token.name,
        "kind": token.kind,
        "scope": token.scope,
        "prefix": token.prefix,
        "user": token.user_id,
        "expires_at": token.expires_at.isoformat() if token.expires_at else None,
    }
    if token.kind == TokenKind.ROLE:
        fields.update(role=token.role, role_scope=str(token.role_scope))
    return fields


def _federation_of(scope: Any) -> Federation | None:
    if isinstance(scope, Federation):
        return scope
    federation = getattr(scope, "federation", None)
    return federation if isinstance(federation, Federation) else None


@transaction.atomic
def create_personal_token(
    user: Any, *, name: str, scope: str, expires_in_days: int | None
) -> NewToken:
    """A token of ``user``'s own, made by ``user`` (a signed-in person, not a service)."""
    if user is None or not user.is_authenticated or not user.is_active:
        raise PermissionDenied(_("Sign in to create a token."))
    if is_service_account(user):
        raise PermissionDenied(_("An integration's account cannot create tokens."))
    if permissions.powers_withheld(user) and permissions.is_official(user):
        # A token acts without a second factor (clubs.second_factor): only a session
        # that gave one may make an official's token.
        raise PermissionDenied(
            _("Give your two-step sign-in code first: an official's token needs it.")
        )
    now = timezone.now()
    made = _make(
        user,
        by=user,
        kind=TokenKind.PERSONAL,
        name=_clean_name(name),
        scope=_clean_scope(scope),
        expires_at=_expiry(expires_in_days, now),
    )
    services.audit(
        user,
        "token.create",
        made.token,
        federation=None,
        before=None,
        after=_audit_fields(made.token),
    )
    return made


@transaction.atomic
def create_role_token(
    role: str,
    role_scope: models.Model,
    *,
    by: Any,
    name: str,
    scope: str,
    expires_in_days: int | None,
) -> NewToken:
    """An integration token holding ``role`` over ``role_scope``, with a service account
    of its own; ``by`` must be allowed to grant that role there."""
    if role not in Role.values:
        raise ValidationError(_("Unknown role: %(role)s") % {"role": role})
    permissions.require(by, "role.grant", (role, role_scope))
    name = _clean_name(name)
    scope = _clean_scope(scope)
    now = timezone.now()
    expires_at = _expiry(expires_in_days, now)
    account = get_user_model()(
        username=f"{SERVICE_ACCOUNT_START}{secrets.token_hex(6)}",
        first_name=name[:150],
        is_active=True,
    )
    account.set_unusable_password()
    account.save()
    made = _make(
        account,
        by=by,
        kind=TokenKind.ROLE,
        name=name,
        scope=scope,
        expires_at=expires_at,
        role=role,
        role_scope_type=ContentType.objects.get_for_model(type(role_scope)),
        role_scope_id=role_scope.pk,
    )
    # The recognisable username names the token it serves (its prefix).
    account.username = f"{SERVICE_ACCOUNT_START}{made.token.prefix}"
    account.save(update_fields=["username"])
    services.grant_role(account, role, role_scope, by=by)
    # grant_role lets role holders into the web admin; a service account never signs
    # in there (it has no password), and staff status would only mislead a reader.
    get_user_model().objects.filter(pk=account.pk).update(is_staff=False)
    services.audit(
        by,
        "token.create",
        made.token,
        federation=_federation_of(role_scope),
        before=None,
        after=_audit_fields(made.token),
    )
    return made


def is_service_account(user: Any) -> bool:
    """Whether ``user`` is an integration token's account (it holds a role token)."""
    cached = getattr(user, "_zary_service_account", None)
    if cached is None:
        cached = ApiToken.objects.filter(user=user, kind=TokenKind.ROLE).exists()
        user._zary_service_account = cached
    return bool(cached)


def may_manage(user: Any, token: ApiToken) -> bool:
    """Whether ``user`` may see and revoke ``token``: a personal token its owner, an
    integration token whoever may grant its role over its scope; a site admin any."""
    if user is None or not user.is_authenticated or not user.is_active:
        return False
    if permissions.is_site_admin(user):  # a leaked token, revoked from the admin
        return True
    if token.kind == TokenKind.PERSONAL:
        return bool(token.user_id == user.pk)
    scope = token.role_scope
    return scope is not None and permissions.can(user, "role.grant", (token.role, scope))


@transaction.atomic
def revoke_token(token: ApiToken, *, by: Any) -> ApiToken:
    """Revoke ``token`` (at once: the next request with it is refused).  An integration
    token also loses its role, and its service account is deactivated."""
    token = ApiToken.objects.select_for_update().select_related("user").get(pk=token.pk)
    if by is not None and not may_manage(by, token):
        raise PermissionDenied(_("You may not revoke this token."))
    if token.revoked_at is not None:
        return token
    token.revoked_at = timezone.now()
    token.save(update_fields=["revoked_at"])
    scope = token.role_scope if token.kind == TokenKind.ROLE else None
    if token.kind == TokenKind.ROLE:
        account = token.user
        # Its role goes with it (``role.grant``, the rule that let ``by`` revoke it).
        for assignment in RoleAssignment.objects.filter(
            user=account,
            role=token.role,
            scope_type_id=token.role_scope_type_id,
            scope_id=token.role_scope_id,
        ):
            services.revoke_role(assignment, by=by)
        account.is_active = False
        account.save(update_fields=["is_active"])
    services.audit(
        by,
        "token.revoke",
        token,
        federation=_federation_of(scope),
        before=_audit_fields(token),
        after={"revoked_at": token.revoked_at.isoformat()},
    )
    return token


def authenticate_token(plain: str, *, now: datetime.datetime | None = None) -> ApiToken:
    """The live token whose text is ``plain``, with its user; TokenRefused says why not.
    One query, plus one conditional UPDATE a minute per token (``last_used_at``)."""
    now = now or timezone.now()
    shape = TOKEN_SHAPE.fullmatch(plain)
    if shape is None:  # nothing that is not a token reaches the database
        raise TokenRefused(_("This is not a Zary API token (zary_…); check that it is whole."))
    token = ApiToken.objects.select_related("user").filter(prefix=shape["prefix"]).first()
    # The hash is compared even when no row has the prefix, in constant time.
    expected = token.key_hash if token is not None else digest("")
    if not hmac.compare_digest(expected, digest(plain)) or token is None:
        raise TokenRefused(_("Unknown API token."))
    if token.revoked_at is not None:
        raise TokenRefused(_("This API token has been revoked."))
    if token.is_expired(now):
        raise TokenRefused(_("This API token has expired."))
    if not token.user.is_active:
        raise TokenRefused(_("The account of this API token is deactivated."))
    if token.last_used_at is None or token.last_used_at <= now - LAST_USED_PRECISION:
        # Conditional: of concurrent requests, one writes.
        ApiToken.objects.filter(pk=token.pk).filter(
            models.Q(last_used_at__isnull=True)
            | models.Q(last_used_at__lte=now - LAST_USED_PRECISION)
        ).update(last_used_at=now)
        token.last_used_at = now
    return token


# --- What the account page lists and offers.


def personal_tokens(user: Any) -> models.QuerySet[ApiToken]:
    """``user``'s own tokens that are not revoked (expired ones are shown as such)."""
    return ApiToken.objects.filter(user=user, kind=TokenKind.PERSONAL, revoked_at__isnull=True)


def grantable_scopes(user: Any) -> list[tuple[str, models.Model]]:
    """The (role, scope) pairs ``user`` may give an integration token on the account
    page: federations and clubs (``role.grant``).  Tournament roles are made through
    ``create_role_token`` by their own app's pages, not offered here."""
    if user is None or not user.is_authenticated or not user.is_active:
        return []
    if permissions.is_site_admin(user):
        federations: list[Federation] = list(Federation.objects.all())
        clubs: list[Club] = list(Club.objects.select_related("federation"))
    else:
        federations = list(permissions.admin_federations(user))
        clubs = list(Club.objects.filter(federation__in=federations).select_related("federation"))
    pairs: list[tuple[str, models.Model]] = [(Role.FEDERATION_ADMIN, f) for f in federations]
    pairs += [(Role.CLUB_ADMIN, c) for c in clubs]
    return [pair for pair in pairs if permissions.can(user, "role.grant", pair)]


def role_tokens(user: Any) -> list[ApiToken]:
    """Integration tokens, not revoked, that ``user`` may manage."""
    if user is None or not user.is_authenticated or not user.is_active:
        return []
    live = ApiToken.objects.filter(kind=TokenKind.ROLE, revoked_at__isnull=True).select_related(
        "role_scope_type", "created_by"
    )
    if not permissions.is_site_admin(user):
        club_type = ContentType.objects.get_for_model(Club)
        clubs = Club.objects.filter(federation__in=permissions.admin_federations(user))
        # Club tokens narrowed in the database to the clubs the rule may allow; every
        # token left is then asked of the rule itself.
        live = live.filter(
            ~models.Q(role_scope_type=club_type) | models.Q(role_scope_id__in=clubs.values("id"))
        )
    return [token for token in live if may_manage(user, token)]
