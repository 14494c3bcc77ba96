"""Request rate limits (base.throttles): a client past its limit gets 429 with
Retry-After; other clients in the same window are unaffected; the stricter
limit of a write that costs comes before the general one; the pages that cost
share their limit with the API.

Rates are lowered per test (settings.THROTTLE_RATES is read per request) and the
throttles' clock is moved by hand, never waited for.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured

from base.throttles import RateThrottle
from config.env import env_rate
from tests.factories import MatchFactory, UserFactory

pytestmark = pytest.mark.django_db

HALL = "10.0.0.1"
ELSEWHERE = "10.0.0.2"
GENEROUS = {
    "anon": "1000/m",
    "user": "1000/m",
    "reports": "1000/h",
    "signup": "1000/h",
    "password_reset": "1000/h",
    "imports": "1000/h",
    "archives": "1000/h",
    "analysis": "1000/h",
}


class Clock:
    """The throttles' time, moved by the test."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    ticking = Clock()
    # A plain function on the class would be bound to the throttle (self): a static one is not.
    monkeypatch.setattr(RateThrottle, "timer", staticmethod(ticking))
    return ticking


def limit(settings: Any, **scopes: str) -> None:
    """Every scope generous but the ones the test is about."""
    settings.THROTTLE_RATES = {**GENEROUS, **scopes}


def test_an_anonymous_client_past_its_rate_gets_429_and_another_address_does_not(
    client: Any, settings: Any, clock: Clock
) -> None:
    limit(settings, anon="3/m")
    for _ in range(3):
        assert client.get("/api/federations/", REMOTE_ADDR=HALL).status_code == 200
    refused = client.get("/api/federations/", REMOTE_ADDR=HALL)
    assert refused.status_code == 429
    assert refused["Retry-After"] == "60"
    assert refused.json() == {"detail": "Too many requests. Try again in 60 seconds."}
    # Same window, another address: its own count.
    assert client.get("/api/federations/", REMOTE_ADDR=ELSEWHERE).status_code == 200
    # The window slides: 20 s later the wait is 40 s, a minute after the first it is over.
    clock.now += 20
    assert client.get("/api/federations/", REMOTE_ADDR=HALL)["Retry-After"] == "40"
    clock.now += 40
    assert client.get("/api/federations/", REMOTE_ADDR=HALL).status_code == 200


def test_a_forged_forwarded_address_does_not_reset_the_count(
    client: Any, settings: Any, clock: Clock
) -> None:
    """Without a proxy in front (SIGNIN_PROXY_COUNT=0) X-Forwarded-For is the client's own
    word: the address counted is the connection's."""
    limit(settings, anon="2/m")
    for forged in ("1.1.1.1", "2.2.2.2"):
        client.get("/api/federations/", REMOTE_ADDR=HALL, HTTP_X_FORWARDED_FOR=forged)
    refused = client.get("/api/federations/", REMOTE_ADDR=HALL, HTTP_X_FORWARDED_FOR="3.3.3.3")
    assert refused.status_code == 429


def test_behind_one_proxy_the_client_address_it_forwards_is_counted(
    client: Any, settings: Any, clock: Clock
) -> None:
    limit(settings, anon="1/m")
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    proxy = "192.168.0.10"
    first = client.get("/api/federations/", REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR=HALL)
    assert first.status_code == 200
    again = client.get("/api/federations/", REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR=HALL)
    assert again.status_code == 429
    other = client.get("/api/federations/", REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR=ELSEWHERE)
    assert other.status_code == 200


def test_signed_in_users_are_counted_each_on_their_own(
    client: Any, settings: Any, clock: Clock
) -> None:
    """Two players at one address (a club hall): one past the user rate, the other reads on."""
    limit(settings, user="2/m", anon="1/m")
    first, second = UserFactory(), UserFactory()
    client.force_login(first)
    for _ in range(2):
        assert client.get("/api/reports/", REMOTE_ADDR=HALL).status_code == 200
    assert client.get("/api/reports/", REMOTE_ADDR=HALL).status_code == 429
    client.force_login(second)
    assert client.get("/api/reports/", REMOTE_ADDR=HALL).status_code == 200
    # Signed-in requests do not spend the address's anonymous allowance.
    client.logout()
    assert client.get("/api/reports/", REMOTE_ADDR=HALL).status_code == 200


def test_the_report_limit_comes_before_the_user_rate(
    client: Any, settings: Any, clock: Clock
) -> None:
    """Posting reports stops at the reports rate while the user still reads freely;
    another user posts on.  A refused post never reaches the view (an empty body is
    a 400 while allowed)."""
    limit(settings, reports="2/h", user="100/m")
    player, other = UserFactory(), UserFactory()
    client.force_login(player)
    for _ in range(2):
        assert client.post("/api/reports/", {}, content_type="application/json").status_code == 400
    refused = client.post("/api/reports/", {}, content_type="application/json")
    assert refused.status_code == 429
    assert refused["Retry-After"] == "3600"
    assert refused.json() == {"detail": "Too many requests. Try again in 60 minutes."}
    assert client.get("/api/reports/").status_code == 200
    client.force_login(other)
    assert client.post("/api/reports/", {}, content_type="application/json").status_code == 400


def test_the_429_is_in_the_client_language(client: Any, settings: Any, clock: Clock) -> None:
    limit(settings, anon="1/m")
    client.get("/api/federations/", REMOTE_ADDR=HALL)
    refused = client.get("/api/federations/", REMOTE_ADDR=HALL, HTTP_ACCEPT_LANGUAGE="ru")
    assert refused.status_code == 429
    assert refused.json()["detail"] == "Слишком много запросов. Повторите через 60 секунд."


def test_a_throttled_turn_answers_in_the_turn_error_shape(
    client: Any, settings: Any, clock: Clock
) -> None:
    """Recording a turn documents one error body (code, reason, turn): a 429 too."""
    limit(settings, user="1/m")
    match = MatchFactory()
    client.force_login(match.player1.user)
    url = f"/api/matches/{match.pk}/turns/"
    client.get(url)
    refused = client.post(url, {}, content_type="application/json")
    assert refused.status_code == 429
    assert refused.json() == {
        "code": "throttled",
        "reason": "Too many requests. Try again in 60 seconds.",
        "turn": None,
    }
    assert refused["Retry-After"] == "60"


def test_a_refused_write_is_not_replayed_to_its_retry(
    client: Any, settings: Any, clock: Clock
) -> None:
    """An Idempotency-Key sent with a refused write is forgotten: the retry after
    Retry-After acts instead of getting the 429 again."""
    limit(settings, reports="1/h")
    client.force_login(UserFactory())
    client.post("/api/reports/", {}, content_type="application/json")
    key = {"HTTP_IDEMPOTENCY_KEY": "report-1"}
    refused = client.post("/api/reports/", {}, content_type="application/json", **key)
    assert refused.status_code == 429
    clock.now += 3600
    retried = client.post("/api/reports/", {}, content_type="application/json", **key)
    assert retried.status_code == 400
    assert "Idempotent-Replayed" not in retried


@pytest.mark.parametrize(
    ("url", "scope", "signed_in"),
    [
        ("/accounts/signup/", "signup", False),
        ("/accounts/password/reset/", "password_reset", False),
        ("/matches/import/", "imports", True),
        ("/archives/", "archives", True),
    ],
)
def test_a_form_that_costs_is_limited_and_its_page_still_shows(
    client: Any, settings: Any, clock: Clock, url: str, scope: str, signed_in: bool
) -> None:
    limit(settings, **{scope: "1/h"})
    if signed_in:
        client.force_login(UserFactory())
    assert client.post(url, {}, REMOTE_ADDR=HALL).status_code != 429
    refused = client.post(url, {}, REMOTE_ADDR=HALL)
    assert refused.status_code == 429
    assert refused["Retry-After"] == "3600"
    assert "Too many requests. Try again in 60 minutes." in refused.content.decode()
    assert "Nothing you sent was saved." in refused.content.decode()
    # Reading the page is never limited.
    assert client.get(url, REMOTE_ADDR=HALL).status_code != 429


def test_sign_up_from_another_address_is_unaffected(
    client: Any, settings: Any, clock: Clock
) -> None:
    limit(settings, signup="1/h")
    client.post("/accounts/signup/", {}, REMOTE_ADDR=HALL)
    assert client.post("/accounts/signup/", {}, REMOTE_ADDR=HALL).status_code == 429
    assert client.post("/accounts/signup/", {}, REMOTE_ADDR=ELSEWHERE).status_code == 200


def test_the_report_form_and_the_api_share_one_count(
    client: Any, settings: Any, clock: Clock
) -> None:
    limit(settings, reports="2/h")
    match = MatchFactory()
    client.force_login(match.player1.user)
    assert client.post("/api/reports/", {}, content_type="application/json").status_code == 400
    assert client.post(f"/matches/{match.pk}/report/", {}).status_code != 429
    assert client.post(f"/matches/{match.pk}/report/", {}).status_code == 429
    assert client.post("/api/reports/", {}, content_type="application/json").status_code == 429


def test_a_scope_set_off_has_no_limit(client: Any, settings: Any, clock: Clock) -> None:
    settings.THROTTLE_RATES = {**GENEROUS, "anon": None}
    for _ in range(5):
        assert client.get("/api/federations/", REMOTE_ADDR=HALL).status_code == 200


def test_a_scope_without_a_rate_is_a_configuration_error(settings: Any, rf: Any) -> None:
    settings.THROTTLE_RATES = {}
    request = rf.post("/accounts/signup/")
    request.user = UserFactory()
    with pytest.raises(ImproperlyConfigured, match="signup"):
        RateThrottle("signup").allow_request(request, None)


@pytest.mark.parametrize(
    ("raw", "rate"),
    [("60/h", "60/h"), (" 5/S ", "5/s"), ("off", None), ("", "9/m"), ("0100/day", "100/day")],
)
def test_a_rate_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, raw: str, rate: str | None
) -> None:
    monkeypatch.setenv("THROTTLE_TEST_RATE", raw)
    assert env_rate("THROTTLE_TEST_RATE", "9/m") == rate


@pytest.mark.parametrize("raw", ["fast", "0/m", "10/week", "10", "-1/s", "١٠/m"])
def test_a_malformed_rate_is_refused_by_name(monkeypatch: pytest.MonkeyPatch, raw: str) -> None:
    monkeypatch.setenv("THROTTLE_TEST_RATE", raw)
    with pytest.raises(ImproperlyConfigured, match="THROTTLE_TEST_RATE"):
        env_rate("THROTTLE_TEST_RATE", "9/m")


def test_the_default_rates_leave_a_club_hall_reading(settings: Any) -> None:
    """The defaults (config/settings.py): 50 phones behind one address, each reading
    the API every 3 seconds, stay under the anonymous rate; writes that cost are
    stricter than a user's general rate."""
    from config import settings as defaults

    count, _period = defaults.THROTTLE_RATES["anon"].split("/")
    assert defaults.THROTTLE_RATES["anon"].endswith("/m") and int(count) >= 50 * 60 // 3
    per_hour = {"s": 3600, "m": 60, "h": 1, "d": 1 / 24}
    user_count, user_period = defaults.THROTTLE_RATES["user"].split("/")
    user_per_hour = int(user_count) * per_hour[user_period[0]]
    for scope in ("reports", "signup", "password_reset", "imports", "archives"):
        scope_count, scope_period = defaults.THROTTLE_RATES[scope].split("/")
        assert int(scope_count) * per_hour[scope_period[0]] < user_per_hour, scope


def test_the_schema_documents_429_with_retry_after(client: Any) -> None:
    schema = client.get("/api/schema/", {"format": "json"}, HTTP_ACCEPT_LANGUAGE="en").json()
    report = schema["paths"]["/api/reports/"]["post"]["responses"]["429"]
    assert "Retry-After" in report["headers"]
    reads = schema["paths"]["/api/federations/"]["get"]["responses"]
    assert "429" in reads
