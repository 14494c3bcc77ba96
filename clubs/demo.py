"""Demo data of the clubs app: accounts, two federations, five clubs, eighty players.

Everything is created through the services (as the system, ``by=None``) and
keyed by stable values, so loading twice changes nothing.
"""

from __future__ import annotations

import datetime
import random
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction

from clubs import services
from clubs.models import Club, Discipline, Federation, FederationDiscipline, Player, Role

ORGANIZER_USERNAME = "organizer"
# Fixed passwords keep `make run` reproducible; the demo never runs with DEBUG off.
ORGANIZER_PASSWORD = "nardy-demo"
STAFF_PASSWORD = "nardy-demo"


@dataclass(frozen=True)
class DemoAccount:
    username: str
    password: str
    created: bool
    role: str = "site admin"


DISCIPLINES = [
    # code, name, variant, preset, cube
    ("short", "Короткие нарды (Short nardy)", "short", "short-standard", True),
    ("long", "Длинные нарды (Long nardy)", "long", "long-masters", False),
    # RULES.md §3.1 with its default army and placement (empty variant_options).
    ("soldiers", "Солдаты (Soldiers)", "soldiers", "short-standard", True),
]

FEDERATIONS = [
    {
        "slug": "fsnr",
        "name": "Федерация спортивных нард России",
        "short_name": "ФСНР",
        "country": "RU",
        "website": "https://nardy.example.org",
        "disciplines": ["short", "long", "soldiers"],
        "clubs": [
            ("Длинная дорога", "dlinnaya-doroga", "Москва"),
            ("Шеш-беш", "shesh-besh", "Казань"),
            ("Белые ночи", "belye-nochi", "Санкт-Петербург"),
        ],
    },
    {
        "slug": "anf",
        "name": "Azərbaycan Nərd Federasiyası",
        "short_name": "ANF",
        "country": "AZ",
        "website": "https://nard.example.az",
        "disciplines": ["long", "short"],
        "clubs": [
            ("İçərişəhər", "icherisheher", "Bakı"),
            ("Gəncə Nərd Klubu", "ganja", "Gəncə"),
        ],
    },
]

# (native, latin) first names and surnames by culture; female surnames where they differ.
RUSSIAN_MEN = [
    ("Алексей", "Aleksey"),
    ("Дмитрий", "Dmitry"),
    ("Сергей", "Sergey"),
    ("Иван", "Ivan"),
    ("Михаил", "Mikhail"),
    ("Андрей", "Andrey"),
    ("Николай", "Nikolay"),
    ("Павел", "Pavel"),
]
RUSSIAN_WOMEN = [("Елена", "Elena"), ("Ольга", "Olga"), ("Наталья", "Natalya"), ("Анна", "Anna")]
RUSSIAN_SURNAMES = [
    ("Иванов", "Ivanov"),
    ("Смирнов", "Smirnov"),
    ("Кузнецов", "Kuznetsov"),
    ("Попов", "Popov"),
    ("Соколов", "Sokolov"),
    ("Лебедев", "Lebedev"),
    ("Волков", "Volkov"),
    ("Морозов", "Morozov"),
]
AZERI_MEN = [
    ("Elçin", "Elchin"),
    ("Rəşad", "Rashad"),
    ("Tural", "Tural"),
    ("Orxan", "Orkhan"),
    ("Vüqar", "Vugar"),
    ("Kamran", "Kamran"),
    ("Fərid", "Farid"),
    ("Elnur", "Elnur"),
]
AZERI_WOMEN = [("Aygün", "Aygun"), ("Leyla", "Leyla"), ("Günel", "Gunel"), ("Nərmin", "Narmin")]
AZERI_SURNAMES = [
    ("Məmmədov", "Mammadov"),
    ("Əliyev", "Aliyev"),
    ("Hüseynov", "Huseynov"),
    ("Həsənov", "Hasanov"),
    ("Quliyev", "Guliyev"),
    ("İsmayılov", "Ismayilov"),
]
TURKISH_MEN = [("Mehmet", "Mehmet"), ("Mustafa", "Mustafa"), ("Emre", "Emre"), ("Burak", "Burak")]
TURKISH_WOMEN = [("Ayşe", "Ayse"), ("Zeynep", "Zeynep")]
TURKISH_SURNAMES = [
    ("Yılmaz", "Yilmaz"),
    ("Kaya", "Kaya"),
    ("Demir", "Demir"),
    ("Şahin", "Sahin"),
    ("Çelik", "Celik"),
    ("Öztürk", "Ozturk"),
]
ENGLISH_MEN = [("John", "John"), ("David", "David"), ("Michael", "Michael"), ("James", "James")]
ENGLISH_WOMEN = [("Sarah", "Sarah"), ("Emma", "Emma")]
ENGLISH_SURNAMES = [
    ("Smith", "Smith"),
    ("Taylor", "Taylor"),
    ("Brown", "Brown"),
    ("Wilson", "Wilson"),
]


def _feminine(surname: tuple[str, str], culture: str) -> tuple[str, str]:
    native, latin = surname
    if culture == "ru":
        return native + "а", latin + "a"  # Cyrillic а
    if culture == "az":
        return native + "a", latin + "a"  # Məmmədov -> Məmmədova
    return surname


def demo_players(count: int = 80) -> list[dict[str, object]]:
    """Deterministic names: two in five Russian, two in five Azerbaijani, the rest Turkish and English."""
    rng = random.Random(2026)
    cultures = [
        ("ru", "RU", RUSSIAN_MEN, RUSSIAN_WOMEN, RUSSIAN_SURNAMES),
        ("az", "AZ", AZERI_MEN, AZERI_WOMEN, AZERI_SURNAMES),
        ("ru", "RU", RUSSIAN_MEN, RUSSIAN_WOMEN, RUSSIAN_SURNAMES),
        ("az", "AZ", AZERI_MEN, AZERI_WOMEN, AZERI_SURNAMES),
        ("tr", "TR", TURKISH_MEN, TURKISH_WOMEN, TURKISH_SURNAMES),
        ("en", "GB", ENGLISH_MEN, ENGLISH_WOMEN, ENGLISH_SURNAMES),
    ]
    players: list[dict[str, object]] = []
    seen: set[str] = set()
    while len(players) < count:
        culture, country, men, women, surnames = cultures[len(players) % len(cultures)]
        female = rng.random() < 0.25
        first = rng.choice(women if female else men)
        last = rng.choice(surnames)
        if female:
            last = _feminine(last, culture)
        latin = f"{first[1]} {last[1]}"
        if latin in seen:
            continue
        seen.add(latin)
        players.append(
            {
                "name_native": f"{last[0]} {first[0]}"
                if culture == "ru"
                else f"{first[0]} {last[0]}",
                "name_latin": latin,
                "birth_year": rng.randint(1950, 2008),
                "gender": "f" if female else "m",
                "country": country,
            }
        )
    return players


def _user(username: str, password: str, **flags: object) -> tuple[object, bool]:
    user_model = get_user_model()
    user, created = user_model.objects.get_or_create(
        username=username, defaults={"email": f"{username}@example.org"}
    )
    for name, value in flags.items():
        setattr(user, name, value)
    user.set_password(password)
    user.save()
    return user, created


@transaction.atomic
def load() -> list[DemoAccount]:
    """The demo organizer (a site admin) first, then the clubs demo world's staff."""
    organizers, _ = Group.objects.get_or_create(name="Organizers")
    user, created = _user(
        ORGANIZER_USERNAME,
        ORGANIZER_PASSWORD,
        is_staff=True,
        is_superuser=True,
        first_name="Demo",
        last_name="Organizer",
    )
    user.groups.add(organizers)
    return [DemoAccount(ORGANIZER_USERNAME, ORGANIZER_PASSWORD, created), *load_world()]


@transaction.atomic
def load_world() -> list[DemoAccount]:
    disciplines = {}
    for code, name, variant, preset, cube in DISCIPLINES:
        disciplines[code], _ = Discipline.objects.get_or_create(
            code=code,
            defaults={"name": name, "variant": variant, "scoring_preset": preset, "cube": cube},
        )
    clubs: list[Club] = []
    for spec in FEDERATIONS:
        federation = Federation.objects.filter(slug=spec["slug"]).first()
        if federation is None:
            federation = services.create_federation(
                by=None,
                **{k: spec[k] for k in ("slug", "name", "short_name", "country", "website")},
            )
        for code in spec["disciplines"]:
            FederationDiscipline.objects.get_or_create(
                federation=federation, discipline=disciplines[code]
            )
        for name, slug, city in spec["clubs"]:
            club = Club.objects.filter(federation=federation, slug=slug).first()
            clubs.append(
                club or services.create_club(federation, by=None, name=name, slug=slug, city=city)
            )

    since = datetime.date(2023, 9, 1)
    for index, values in enumerate(demo_players()):
        # Russian and foreign guests play in the Russian clubs, Azerbaijani players in Baku and Ganja.
        club = clubs[3 + index % 2] if values["country"] == "AZ" else clubs[index % 3]
        number = f"{club.federation.short_name}-{index + 1:04d}"
        if Player.objects.filter(federation=club.federation, membership_number=number).exists():
            continue
        player = services.create_player(
            by=None, federation=club.federation, membership_number=number, **values
        )
        services.add_membership(
            player, club, by=None, start=since + datetime.timedelta(days=7 * index)
        )

    accounts = []
    fed_admin, created = _user("federation-admin", STAFF_PASSWORD, is_staff=True)
    services.grant_role(fed_admin, Role.FEDERATION_ADMIN, clubs[0].federation, by=None)
    accounts.append(
        DemoAccount(fed_admin.username, STAFF_PASSWORD, created, "federation admin (ФСНР)")
    )
    club_admin, created = _user("club-admin", STAFF_PASSWORD, is_staff=True)
    services.grant_role(club_admin, Role.CLUB_ADMIN, clubs[3], by=None)
    accounts.append(
        DemoAccount(club_admin.username, STAFF_PASSWORD, created, "club admin (İçərişəhər)")
    )
    return accounts
