"""Result conditions and scoring presets (RULES.md §6).

A preset is data: an ordered list of rules ``(name, multiplier, conditions)``
over the loser's final position; the first rule whose conditions all hold
gives the result, otherwise the result is the preset's default (``single``, 1).
A federation's own list is loaded with ``preset_from_dict`` and validated the
same way as the built-in presets (errors about one rule carry its index as
``rule``); ``ScoringPreset.to_dict`` writes it back, and the two round-trip.
A preset is used in a game through ``GameRules(variant, scoring=preset)``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.errors import EngineError
from engine.rules.board import BAR, OFF, SHARED, Position
from engine.rules.variants import Variant

DEFAULT_RESULT = "single"


class ScoringPresetError(EngineError, ValueError):
    """A scoring preset (built-in or user-defined) that cannot be used."""


# A condition looks at the loser's final position; the variant supplies the geometry.
Condition = Callable[[Variant, Position, int], bool]


def _none_off(variant: Variant, position: Position, loser: int) -> bool:
    return position.side(loser)[OFF] == 0


def _not_all_home(variant: Variant, position: Position, loser: int) -> bool:
    row = position.side(loser)
    return any(row[q] for q in range(7, BAR + 1))


def _all_home_none_off(variant: Variant, position: Position, loser: int) -> bool:
    row = position.side(loser)
    return row[OFF] == 0 and not any(row[q] for q in range(7, BAR + 1))


def _in_winner_home_or_bar(variant: Variant, position: Position, loser: int) -> bool:
    row = position.side(loser)
    if row[BAR]:
        return True
    if variant.geometry is SHARED:
        # Chase: both sides share one path, so the winner's home is the
        # loser's own.  RULES.md §6 reads the condition as the first quarter
        # of the loser's path (its 24..19), as far from home as the winner's
        # home is in short nardy.
        return any(row[q] for q in range(19, BAR))
    cross = variant.geometry.cross[loser]
    return any(row[q] and 1 <= cross[q] <= 6 for q in range(1, BAR))


def _on_bar(variant: Variant, position: Position, loser: int) -> bool:
    return position.side(loser)[BAR] > 0


def _on_start(variant: Variant, position: Position, loser: int) -> bool:
    return position.side(loser)[variant.head] > 0


def _mother_pinned(variant: Variant, position: Position, loser: int) -> bool:
    # Plakoto keeps ``("mother_pinned", (white_pinned, black_pinned))`` in
    # Position.extra; the classic games never set it.
    for key, value in position.extra:
        if key == "mother_pinned":
            if isinstance(value, tuple | list) and len(value) == 2:
                return bool(value[loser])
            raise ScoringPresetError(
                "bad_mother_pinned",
                "position extra 'mother_pinned' must be a (white, black) pair of flags",
            )
    return False


CONDITIONS: dict[str, Condition] = {
    "none_off": _none_off,
    "not_all_home": _not_all_home,
    "all_home_none_off": _all_home_none_off,
    "in_winner_home_or_bar": _in_winner_home_or_bar,
    "on_bar": _on_bar,
    "on_start": _on_start,
    "mother_pinned": _mother_pinned,
}


@dataclass(frozen=True, slots=True)
class ScoringRule:
    name: str
    multiplier: int
    conditions: tuple[str, ...]  # all must hold; empty = always

    def matches(self, variant: Variant, position: Position, loser: int) -> bool:
        return all(CONDITIONS[c](variant, position, loser) for c in self.conditions)


@dataclass(frozen=True, slots=True)
class ScoringPreset:
    name: str
    rules: tuple[ScoringRule, ...]
    source: str = ""
    default: str = DEFAULT_RESULT  # the result when no rule matches, multiplier 1

    def __post_init__(self) -> None:
        _validate(self)

    def result_names(self) -> tuple[str, ...]:
        """Every result this preset can give, default first, without repeats."""
        names = [self.default]
        for rule in self.rules:
            if rule.name not in names:
                names.append(rule.name)
        return tuple(names)

    def multiplier_of(self, result_name: str) -> int | None:
        if result_name == self.default:
            return 1
        for rule in self.rules:
            if rule.name == result_name:
                return rule.multiplier
        return None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "source": self.source,
            "default": self.default,
            "rules": [
                {"name": r.name, "multiplier": r.multiplier, "conditions": list(r.conditions)}
                for r in self.rules
            ],
        }


def _validate(preset: ScoringPreset) -> None:
    if not isinstance(preset.name, str) or not preset.name.strip():
        raise ScoringPresetError("empty_preset_name", "a scoring preset needs a name")
    if not isinstance(preset.default, str) or not preset.default.strip():
        raise ScoringPresetError("empty_rule_name", "the default result needs a name")
    multipliers: dict[str, int] = {preset.default: 1}
    seen: list[frozenset[str]] = []
    for index, rule in enumerate(preset.rules):
        if not isinstance(rule.name, str) or not rule.name.strip():
            raise ScoringPresetError("empty_rule_name", f"rule {index} has no name", rule=index)
        mult = rule.multiplier
        if isinstance(mult, bool) or not isinstance(mult, int) or mult < 1:
            raise ScoringPresetError(
                "bad_multiplier",
                f"rule {index} ({rule.name}): the multiplier must be a positive whole number",
                rule=index,
                multiplier=mult,
            )
        for cond in rule.conditions:
            if cond not in CONDITIONS:
                raise ScoringPresetError(
                    "unknown_condition",
                    f"rule {index} ({rule.name}): unknown condition {cond!r}; "
                    f"known: {', '.join(CONDITIONS)}",
                    rule=index,
                    condition=cond,
                )
        conds = frozenset(rule.conditions)
        if len(conds) != len(rule.conditions):
            raise ScoringPresetError(
                "duplicate_condition",
                f"rule {index} ({rule.name}) lists a condition twice",
                rule=index,
            )
        # The same name twice is how "either of these" is written (Plakoto's
        # two ways to a mars), so it is allowed only with the same multiplier.
        previous = multipliers.get(rule.name)
        if previous is not None and previous != mult:
            raise ScoringPresetError(
                "duplicate_rule_name",
                f"rule {index}: the result {rule.name!r} already has multiplier {previous}",
                rule=index,
                name=rule.name,
            )
        multipliers[rule.name] = mult
        # A rule whose conditions include all of an earlier rule's can never
        # be the first match (identical sets are the common case).
        for earlier, earlier_conds in enumerate(seen):
            if earlier_conds <= conds:
                raise ScoringPresetError(
                    "unreachable_rule",
                    f"rule {index} ({rule.name}) can never apply: rule {earlier} "
                    "matches whenever it would",
                    rule=index,
                    shadowed_by=earlier,
                )
        seen.append(conds)


def score(
    preset: ScoringPreset, variant: Variant, final_position: Position, loser: int
) -> tuple[str, int]:
    """The result name and multiplier for ``loser`` in ``final_position``."""
    for rule in preset.rules:
        if rule.matches(variant, final_position, loser):
            return rule.name, rule.multiplier
    return preset.default, 1


def _rule(name: str, multiplier: int, *conditions: str) -> ScoringRule:
    return ScoringRule(name, multiplier, conditions)


PRESETS: dict[str, ScoringPreset] = {
    p.name: p
    for p in (
        ScoringPreset(
            "short-standard",
            (
                _rule("koks", 3, "none_off", "in_winner_home_or_bar"),
                _rule("mars", 2, "none_off"),
            ),
            source="000 (Masters of Nardy, short nardy), 002 (Wikipedia, Short nardy)",
        ),
        ScoringPreset(
            "short-nauka-1980",
            (
                _rule("mars x8", 8, "none_off", "not_all_home", "on_bar"),
                _rule("mars x4", 4, "none_off", "not_all_home"),
                _rule("mars", 2, "none_off"),
            ),
            source="001 (Nauka i Zhizn, 1980s)",
        ),
        ScoringPreset(
            "long-masters",
            (
                _rule("home mars", 3, "all_home_none_off"),
                _rule("mars", 2, "none_off"),
            ),
            source="000 (Masters of Nardy, long nardy rules pages)",
        ),
        ScoringPreset(
            "long-article",
            (_rule("mars", 2, "not_all_home"),),
            source="000 (general long-nardy article)",
        ),
        ScoringPreset(
            "tavla",
            (_rule("mars", 2, "none_off"),),
            source="000 (Masters of Nardy, Tavla)",
        ),
        ScoringPreset(
            "single",
            (),
            source="000 (Old English), 002 (Sudden death)",
        ),
        ScoringPreset(
            "plakoto",
            (
                _rule("mars", 2, "mother_pinned"),
                _rule("mars", 2, "none_off"),
            ),
            source="002 (Wikipedia, Plakoto: mother pinned = loss with mars)",
        ),
    )
}


def get_preset(name: str) -> ScoringPreset:
    try:
        return PRESETS[name]
    except KeyError:
        raise ScoringPresetError(
            "unknown_preset",
            f"unknown scoring preset {name!r}; known: {', '.join(sorted(PRESETS))}",
            preset=name,
        ) from None


_PRESET_KEYS = ("name", "source", "default", "rules")
_RULE_KEYS = ("name", "multiplier", "conditions")


def preset_from_dict(data: Mapping[str, Any]) -> ScoringPreset:
    """Build and validate a preset from ``{"name", "rules": [{"name",
    "multiplier", "conditions": [...]}, ...], "source"?, "default"?}``."""
    if not isinstance(data, Mapping):
        raise ScoringPresetError("bad_preset", "a scoring preset must be a mapping")
    # A misspelt key would otherwise be dropped without a word.
    unknown = sorted(str(k) for k in data if k not in _PRESET_KEYS)
    if unknown:
        raise ScoringPresetError(
            "unknown_key",
            f"unknown key(s) {', '.join(unknown)}; a preset has {', '.join(_PRESET_KEYS)}",
            keys=unknown,
        )
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ScoringPresetError("empty_preset_name", "a scoring preset needs a name")
    raw_rules = data.get("rules", [])
    if not isinstance(raw_rules, list | tuple):
        raise ScoringPresetError("bad_preset", "'rules' must be a list")
    rules: list[ScoringRule] = []
    for index, raw in enumerate(raw_rules):
        if not isinstance(raw, Mapping):
            raise ScoringPresetError("bad_rule", f"rule {index} must be a mapping", rule=index)
        unknown = sorted(str(k) for k in raw if k not in _RULE_KEYS)
        if unknown:
            raise ScoringPresetError(
                "unknown_key",
                f"rule {index}: unknown key(s) {', '.join(unknown)}; "
                f"a rule has {', '.join(_RULE_KEYS)}",
                rule=index,
                keys=unknown,
            )
        rule_name = raw.get("name")
        if not isinstance(rule_name, str) or not rule_name.strip():
            raise ScoringPresetError("empty_rule_name", f"rule {index} has no name", rule=index)
        conditions = raw.get("conditions", [])
        if not isinstance(conditions, list | tuple) or not all(
            isinstance(c, str) for c in conditions
        ):
            raise ScoringPresetError(
                "bad_rule", f"rule {index}: 'conditions' must be a list of names", rule=index
            )
        multiplier = raw.get("multiplier")
        if isinstance(multiplier, bool) or not isinstance(multiplier, int) or multiplier < 1:
            raise ScoringPresetError(
                "bad_multiplier",
                f"rule {index} ({rule_name}): the multiplier must be a positive whole number",
                rule=index,
                multiplier=multiplier,
            )
        rules.append(ScoringRule(rule_name.strip(), multiplier, tuple(conditions)))
    source = data.get("source", "")
    default = data.get("default", DEFAULT_RESULT)
    if not isinstance(source, str):
        raise ScoringPresetError("bad_preset", "'source' must be text")
    if not isinstance(default, str):
        raise ScoringPresetError("empty_rule_name", "the default result needs a name")
    return ScoringPreset(name.strip(), tuple(rules), source=source, default=default)
