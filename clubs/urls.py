"""Pages of the clubs app: public pages, accounts, players' and staff pages."""

from django.urls import path

from base.throttles import limit_posts
from clubs.views import accounts, player, public, second_factor, staff, tokens

app_name = "clubs"

urlpatterns = [
    # Public
    path("f/", public.federation_list, name="federation_list"),
    path("f/<slug:slug>/", public.federation_detail, name="federation"),
    path("f/<slug:slug>/clubs/<slug:club_slug>/", public.club_detail, name="club"),
    path("players/<int:pk>/", public.player_detail, name="player"),
    # Players
    path("players/<int:pk>/claim/", player.claim, name="player_claim"),
    path("accounts/profile/", player.own_profile, name="own_profile"),
    # Accounts
    path("accounts/", accounts.account, name="account"),
    # API tokens (clubs.tokens): made and revoked from the account page.
    path("accounts/tokens/new/", tokens.create_personal, name="token_create"),
    path("accounts/tokens/integration/new/", tokens.create_integration, name="integration_create"),
    path("accounts/tokens/<int:pk>/revoke/", tokens.revoke, name="token_revoke"),
    # Posts that cost (a password hash, an e-mail) are limited per address (base.throttles).
    path("accounts/signup/", limit_posts("signup")(accounts.sign_up), name="signup"),
    path("accounts/login/", accounts.SignInView.as_view(), name="login"),
    path("accounts/logout/", accounts.SignOutView.as_view(), name="logout"),
    # Two-step sign-in (clubs.second_factor): every code typed is limited per user or address.
    path(
        "accounts/two-step/",
        limit_posts("second_factor")(second_factor.verify),
        name="second_factor_verify",
    ),
    path(
        "accounts/two-step/setup/",
        limit_posts("second_factor")(second_factor.setup),
        name="second_factor_setup",
    ),
    path(
        "accounts/two-step/recovery-codes/",
        second_factor.recovery_codes,
        name="second_factor_recovery_codes",
    ),
    path(
        "accounts/two-step/off/",
        limit_posts("second_factor")(second_factor.disable),
        name="second_factor_disable",
    ),
    path(
        "accounts/password/reset/",
        limit_posts("password_reset")(accounts.PasswordResetView.as_view()),
        name="password_reset",
    ),
    path(
        "accounts/password/reset/sent/",
        accounts.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "accounts/password/reset/<uidb64>/<token>/",
        accounts.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "accounts/password/reset/done/",
        accounts.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
    path(
        "accounts/password/change/",
        accounts.signed_in(accounts.PasswordChangeView.as_view()),
        name="password_change",
    ),
    path(
        "accounts/password/change/done/",
        accounts.signed_in(accounts.PasswordChangeDoneView.as_view()),
        name="password_change_done",
    ),
    # Staff
    path("staff/claims/", staff.claims, name="staff_claims"),
    path("staff/claims/<int:pk>/decide/", staff.decide, name="staff_claim_decide"),
]
