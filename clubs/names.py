"""How a player's two names are shown: the native name, and the Latin one beside it
only when it tells the reader something more (pure: no database).

A name typed in its native Latin alphabet ("Mustafa Yılmaz", "Şahin Ağayev",
"Élodie Durand") and its plain Latin spelling ("Mustafa Yilmaz") are one name
to a reader: showing both ("Mustafa Yılmaz (Mustafa Yilmaz)") only repeats it.
Names in two scripts ("Мамедов Эльчин" / "Mamedov Elchin") or two spellings
("Elçin Məmmədov" / "Elchin Mammadov") are both shown.

The fold is narrower than ``clubs.queries.name_key`` on purpose: that key
transliterates every script (so a search for "petrova" finds "Петрова") and
would make a Cyrillic name and its transliteration "the same"; here only case,
accents and the Latin letters that carry a mark without decomposing into one
(ı, ø, ł, đ …) are set aside.
"""

from __future__ import annotations

import unicodedata

# Latin letters that Unicode does not decompose into a base letter and a mark, as
# their plain spelling (after casefold: "ß" is already "ss", "İ" is "i" + a dot).
_PLAIN_LETTERS = str.maketrans(
    {
        "ı": "i",  # Turkish and Azerbaijani dotless i
        "ø": "o",
        "ł": "l",
        "đ": "d",
        "ð": "d",
        "ħ": "h",
        "þ": "th",
        "æ": "ae",
        "œ": "oe",
        "ŀ": "l",
    }
)


def fold(name: str) -> str:
    """``name`` without case, accents and diacritics, spaces collapsed:
    'Mustafa Yılmaz' and 'MUSTAFA YILMAZ' and 'Mustafa Yilmaz' fold alike;
    other scripts keep their letters ('Мамедов' stays Cyrillic)."""
    decomposed = unicodedata.normalize("NFKD", name.casefold())
    bare = "".join(char for char in decomposed if not unicodedata.combining(char))
    return " ".join(bare.translate(_PLAIN_LETTERS).split())


def latin_adds(native: str, latin: str) -> bool:
    """Whether the Latin name is worth showing beside the native one: both are given
    and they differ by more than case, accents and diacritics."""
    return bool(native and latin) and fold(native) != fold(latin)


def display_name(native: str, latin: str) -> str:
    """'Мамедов Эльчин (Mamedov Elchin)', or the one name when the other adds nothing
    ('Mustafa Yılmaz': the native spelling, accents kept)."""
    if latin_adds(native, latin):
        return f"{native} ({latin})"
    return native or latin
