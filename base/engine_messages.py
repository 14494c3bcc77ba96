"""The user's sentence for every error code the engine raises, and the
user's words for the engine's result names.

The engine (pure Python, no Django) reports a stable ``code`` and the data a
message needs; its ``reason`` is plain English for the command line and logs
and never reaches a page.  Here each code maps to translated templates that
read the error's data; a code without an entry still gets a translated
sentence naming the code, never the engine's English prose.

It lives in ``config`` because every app shows engine errors: clubs (custom
scoring rules of a discipline) sits below games, so a games module could not
serve it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from engine.errors import EngineError
from engine.soldiers.record import SoldiersRecordError

BAR = 25  # the engine's point number of the bar (and 0 is "off")


@dataclass(frozen=True)
class Template:
    """A sentence with ``%(key)s`` placeholders, used when the data hold every key
    it names and ``when`` (if given) accepts the data."""

    text: Promise
    when: Callable[[Mapping[str, Any]], bool] | None = None

    def placeholders(self) -> set[str]:
        return set(re.findall(r"%\((\w+)\)s", str(self.text)))


def _t(text: Promise, when: Callable[[Mapping[str, Any]], bool] | None = None) -> Template:
    return Template(text, when)


def _on_bar(data: Mapping[str, Any]) -> bool:
    return data.get("point") == BAR


def _is_list(key: str) -> Callable[[Mapping[str, Any]], bool]:
    return lambda data: isinstance(data.get(key), list | tuple)


def _is_int(key: str) -> Callable[[Mapping[str, Any]], bool]:
    return lambda data: isinstance(data.get(key), int) and not isinstance(data.get(key), bool)


def _has(key: str) -> Callable[[Mapping[str, Any]], bool]:
    return lambda data: bool(data.get(key))


def _turn_given(data: Mapping[str, Any]) -> bool:
    # a Soldiers record's turn index; -1 when the whole record is refused
    turn = data.get("turn")
    return isinstance(turn, int) and not isinstance(turn, bool) and turn >= 0


def _one_of_several(data: Mapping[str, Any]) -> bool:
    points = data.get("points")
    return isinstance(points, list | tuple) and len(points) > 1


# code -> templates, most specific first; the last one of each code needs no data
# (or only data every raise site of that code passes).
MESSAGES: dict[str, tuple[Template, ...]] = {
    # --- a play the rules refuse (engine/movegen/, engine/rules/game.py)
    "must_play": (
        _t(_("A play is possible with these dice, for example %(example)s.")),
        _t(_("A play is possible with these dice.")),
    ),
    "must_play_both": (
        _t(_("Both dice must be played when possible: %(example)s is legal.")),
        _t(_("Both dice must be played when possible.")),
    ),
    "must_play_more": (
        _t(_("%(playable)s of the dice can be played, not just %(played)s: %(example)s is legal.")),
        _t(_("More of the dice can be played: %(example)s is legal.")),
        _t(_("More of the dice can be played.")),
    ),
    "must_play_larger": (
        _t(_("The larger die (%(die)s) must be played: %(example)s is legal.")),
        _t(_("The larger die must be played.")),
    ),
    "must_bear_off": (
        _t(_("A die that can bear a checker off must do so: %(example)s is legal.")),
        _t(_("A die that can bear a checker off must do so.")),
    ),
    "not_legal": (
        _t(_("%(move)s is not a move on the board.")),
        _t(_("This is not a legal play; %(example)s is.")),
        _t(_("This is not a legal play with these dice.")),
    ),
    "not_a_legal_play": (_t(_("This is not one of the legal plays.")),),
    "wrong_direction": (
        _t(_("%(move)s: checkers move from higher to lower point numbers.")),
        _t(_("Checkers move from higher to lower point numbers.")),
    ),
    "dice_mismatch": (
        _t(_("%(move)s is not a move of %(dice)s.")),
        _t(_("These moves use more than the dice give (%(dice)s).")),
        _t(_("These moves do not match the dice.")),
    ),
    "false_hit": (
        _t(_("There is no opposing blot to hit on %(points)s.")),
        _t(_("There is no opposing blot to hit where marked.")),
    ),
    "no_checker": (
        _t(_("%(move)s: you have no checker on the bar."), _on_bar),
        _t(_("%(move)s: you have no checker on point %(point)s.")),
        _t(_("%(move)s: you have no checker there.")),
        _t(_("You have no checker there.")),
    ),
    "bar_first": (
        _t(_("%(move)s: checkers on the bar must enter before any other checker moves.")),
        _t(_("Checkers on the bar must enter before any other checker moves.")),
    ),
    "head_rule": (
        _t(_("%(move)s: no more checkers may leave the head (%(point)s) this turn.")),
        _t(_("%(move)s: no more checkers may leave the head this turn.")),
        _t(_("No more checkers may leave the head this turn.")),
    ),
    "point_closed": (
        _t(
            _("%(move)s: points %(points)s are closed on every route: the opponent holds them."),
            _one_of_several,
        ),
        _t(_("%(move)s: point %(point)s is closed: the opponent holds it.")),
        _t(_("The point is closed: the opponent holds it.")),
    ),
    "six_block": (
        _t(
            _(
                "%(move)s: landing on %(point)s makes a block of six points with no opposing "
                "checker ahead of it."
            )
        ),
        _t(_("A block of six points needs an opposing checker ahead of it.")),
    ),
    "bear_off_not_home": (
        _t(
            _("%(move)s: bearing off needs all checkers home; %(outside)s still outside."),
            _is_int("outside"),
        ),
        _t(_("%(move)s: bearing off needs all checkers home.")),
        _t(_("Bearing off needs all checkers home.")),
    ),
    "bear_off_higher_checker": (
        _t(_("%(move)s: a checker stands on %(higher)s, higher than the one borne off.")),
        _t(_("%(move)s: a checker on a higher point must move first (point %(point)s).")),
        _t(_("A checker on a higher point must move first.")),
    ),
    "pinned_checker": (
        _t(_("%(move)s: your checker on %(point)s is pinned and cannot move.")),
        _t(_("A pinned checker cannot move.")),
    ),
    "hit_and_run": (
        _t(
            _(
                "%(move)s: the checker that hit on %(point)s in your home may not move "
                "again this turn."
            )
        ),
        _t(_("The checker that hit in your home may not move again this turn.")),
    ),
    "hit_and_hide": (
        _t(
            _(
                "%(move)s: the checker that hit on %(point)s in your home may not go on to a "
                "point of your own while the die can be played another way."
            )
        ),
        _t(_("The checker that hit may not go on to a point of your own now.")),
    ),
    "hit_and_bear_off": (
        _t(
            _(
                "%(move)s: the checker that hit on %(point)s in your home may not be borne off "
                "while the die can be played another way."
            )
        ),
        _t(_("The checker that hit may not be borne off now.")),
    ),
    "too_many_on_point": (
        _t(_("%(move)s: point %(point)s already holds the most checkers allowed on one point.")),
        _t(_("The point already holds the most checkers allowed.")),
    ),
    # --- actions out of place (engine/rules/game.py, engine/rules/match.py, engine/rules/dice.py)
    "wrong_phase": (
        _t(_("The game is already over."), lambda d: d.get("phase") == "finished"),
        _t(_("Not allowed now: the game awaits %(phase)s.")),
        _t(_("This action is not allowed at this point of the game.")),
    ),
    "invalid_dice": (
        _t(
            _("%(dice)s: this game is played with %(expected)s dice of 1 to 6."),
            _is_int("expected"),
        ),
        _t(_("%(dice)s: dice are numbers 1 to 6.")),
        _t(_("Dice are numbers 1 to 6, like 3-1.")),
    ),
    "invalid_die": (
        _t(_("%(value)s is not a die value (1 to 6).")),
        _t(_("A die shows 1 to 6.")),
    ),
    "dice_exhausted": (
        _t(_("The dice record has %(remaining)s value(s) left, %(needed)s needed.")),
        _t(_("The dice record has run out.")),
    ),
    "invalid_rules": (
        _t(_("The option “%(option)s” needs the doubling cube."), lambda d: "option" in d),
        _t(_("These game rules are not valid.")),
    ),
    "bad_side": (_t(_("A side is White or Black.")),),
    "opening_dice_required": (
        _t(_("In this game the starter plays the opening dice: enter them.")),
    ),
    "opening_double": (
        _t(_("%(dice)s: the first move uses the opening dice, which cannot be equal.")),
        _t(_("The first move uses the opening dice, which cannot be equal.")),
    ),
    # a recorded opening throw and turn (engine/rules/actions.py)
    "opening_dice": (_t(_("Opening roll: enter one die for each player.")),),
    "opening_tie": (_t(_("Equal opening dice are rolled again: record the deciding roll.")),),
    "dice_already_known": (
        _t(_("This turn is played with the opening dice %(dice)s.")),
        _t(_("This turn is played with the opening dice.")),
    ),
    "dice_named_by_mover": (_t(_("Nobody rolls in this game: the mover names the dice.")),),
    "dice_not_nameable": (_t(_("In this game the dice are rolled, not named by the mover.")),),
    "turn_playable": (
        _t(_("A turn may be passed without a roll only when no roll could be played.")),
    ),
    "already_rolled": (_t(_("This is done before rolling, not after.")),),
    "no_cube": (_t(_("This game is played without the doubling cube.")),),
    "crawford_game": (_t(_("Nobody may double in the Crawford game.")),),
    "opening_turn": (_t(_("Not allowed before the first move.")),),
    "cube_not_owned": (_t(_("Only the cube's owner may redouble.")),),
    "beaver_not_allowed": (_t(_("Beavers are not played under these rules.")),),
    "already_beavered": (_t(_("A beaver cannot itself be beavered.")),),
    "no_bomb": (_t(_("This game is played without the bomb.")),),
    "bomb_not_yours": (_t(_("Only the side the bomb passed to may set it off.")),),
    "unknown_resignation_level": (
        _t(_("“%(level)s” is not a result of these rules; choose one of: %(levels)s.")),
        _t(_("This is not a result of these rules.")),
    ),
    "money_option_in_match": (
        _t(_("Beaver, Jacoby and automatic doubles do not apply in a match.")),
    ),
    "crawford_without_cube": (_t(_("A Crawford game needs a game with the cube.")),),
    "bad_position": (
        _t(_("%(side)s has the wrong number of checkers for this game.")),
        _t(_("A side has the wrong number of checkers for this game.")),
    ),
    "bad_match_length": (
        _t(_("Match length %(length)s is not valid."), _is_int("length")),
        _t(_("A match length is 0 (money) or more points.")),
    ),
    "cube_in_crawford_game": (
        _t(_("Game %(game)s is the Crawford game: its cube cannot be %(cube)s.")),
        _t(_("The Crawford game is played without doubling.")),
    ),
    "bad_result": (_t(_("A game result needs a winner and at least one point.")),),
    "match_over": (_t(_("The match is already over.")),),
    "game_over": (_t(_("The game is already over.")),),
    # --- move notation (engine/records/notation.py)
    "bad_token": (
        _t(_("“%(token)s” is not notation.")),
        _t(_("The record cannot be read here.")),
    ),
    "point_out_of_range": (
        _t(
            _(
                "“%(token)s”: a move starts on a point (1 to 24) or the bar and ends on a "
                "point or off."
            )
        ),
        _t(_("A move starts on a point (1 to 24) or the bar and ends on a point or off.")),
    ),
    "backwards": (
        _t(_("“%(token)s”: checkers move to lower points.")),
        _t(_("Checkers move to lower points.")),
    ),
    "bad_repeat": (
        _t(_("“%(token)s”: a repeat is written (2), (3) or (4).")),
        _t(_("A repeat is written (2), (3) or (4).")),
    ),
    "bad_turn": (
        _t(_("“%(token)s”: a turn is dice, a colon, then moves (5-2: 13/8 6/4).")),
        _t(_("A turn is dice, a colon, then moves (5-2: 13/8 6/4).")),
    ),
    "bad_dice": (
        _t(_("Dice %(dice)s are neither two values 1 to 6 nor “not rolled”."), _is_list("dice")),
        _t(_("“%(token)s”: dice are written 5-2 and show 1 to 6.")),
        _t(_("Dice are written 5-2 and show 1 to 6.")),
    ),
    # --- Position ID and Match ID (engine/records/gnubgid.py)
    "bad_id_length": (
        _t(_("The ID has %(length)s characters instead of %(expected)s.")),
        _t(_("The ID has the wrong length.")),
    ),
    "bad_character": (
        _t(_("Character “%(character)s” in the ID is not allowed.")),
        _t(_("The ID holds a character that is not allowed.")),
    ),
    "trailing_bits": (_t(_("The ID has bits set past its end: it is not a valid ID.")),),
    "too_many_checkers": (
        _t(_("The position has more than %(checkers)s checkers of one side.")),
        _t(_("The position has too many checkers of one side.")),
    ),
    "bad_cube": (
        _t(_("Cube value %(cube)s is not a power of two up to 32768.")),
        _t(_("The cube value is not valid.")),
    ),
    "bad_cube_owner": (_t(_("The cube owner is not valid.")),),
    "bad_player": (_t(_("The player on roll is not valid.")),),
    "bad_score": (
        _t(_("Score %(score)s is out of range.")),
        _t(_("The score is out of range.")),
    ),
    "bad_game_state": (_t(_("The game state in the Match ID is not valid.")),),
    # --- match files: .mat and SGF (engine/records/matfile.py, match_builder.py, sgf.py)
    "no_games": (_t(_("The file holds no game.")),),
    "no_match_line": (_t(_("The match length line (“N point match”) is missing or misplaced.")),),
    "second_match": (_t(_("A second match length line.")),),
    "no_score_line": (_t(_("A game without its score line.")),),
    "outside_game": (_t(_("Text outside a game (a “Game n” line missing?).")),),
    "unrecognised_line": (_t(_("This line cannot be read.")),),
    "unsupported_variation": (_t(_("This variation is not supported.")),),
    "bad_header": (_t(_("A header line has a value that is not On or Off.")),),
    "bad_action": (_t(_("An action that cannot be read.")),),
    "bad_columns": (_t(_("Two actions but the left column is blank.")),),
    "too_many_actions": (_t(_("More than two actions on one line.")),),
    "turn_number": (_t(_("The turns are not numbered in order (a line is missing?).")),),
    "game_number": (_t(_("The games are not numbered in order.")),),
    "score_mismatch": (
        _t(_("The score is written %(written)s, but the games so far give %(expected)s.")),
        _t(_("The written score does not follow from the games.")),
    ),
    "crawford_mismatch": (_t(_("The Crawford game mark does not agree with the score.")),),
    "game_not_finished": (
        _t(_("Game %(game)s ends without a result.")),
        _t(_("A game ends without a result.")),
    ),
    "after_result": (_t(_("An action after the game is over.")),),
    "after_resignation": (_t(_("A resignation is followed by more play instead of its result.")),),
    "already_resigned": (_t(_("A second resignation.")),),
    "unknown_roll": (_t(_("A roll with unknown dice is only allowed before resigning.")),),
    "roll_not_played": (_t(_("A roll before resigning must be followed by the result.")),),
    "cube_value": (
        _t(_("The cube goes to %(expected)s, not %(written)s.")),
        _t(_("The cube value is wrong.")),
    ),
    "wrong_winner": (
        _t(_("The game is written as won by player %(written)s, but player %(expected)s won it.")),
        _t(_("The written winner is not the player who won the game.")),
    ),
    "wrong_points": (
        _t(_("The game is written as won with %(written)s points, but it is worth %(expected)s.")),
        _t(_("The game is written as won with %(written)s points, which it cannot score.")),
        _t(_("The points written for the game do not follow from its moves.")),
    ),
    # Warnings of an import (engine.records.record.RecordWarning): kept, not refused.
    "empty_name": (_t(_("Player %(player)s has no name in the file.")),),
    "wins_column": (
        _t(
            _(
                "The win is written for player %(resigner)s, who resigned: "
                "the opponent won the game."
            )
        ),
    ),
    "resign_points": (
        _t(_("The resignation is written as %(expected)s points, the win as %(written)s.")),
    ),
    "match_resigned": (
        _t(
            _(
                "Player %(resigner)s resigned the match in game %(game)s: "
                "the match goes to the opponent."
            )
        ),
    ),
    "player_name": (
        _t(_("Player %(player)s is named “%(header)s” in the header, “%(name)s” in the games.")),
        _t(_("A player's name differs from the header.")),
    ),
    "names_differ": (_t(_("The players' names change from one game to another.")),),
    "late_header": (_t(_("A header line after the match length line was ignored.")),),
    "ignored_text": (_t(_("Text before the match length line was ignored.")),),
    "illegal_play_note": (_t(_("An “Illegal play” note in the file was ignored.")),),
    "double_unanswered": (_t(_("The game ends while a double awaits its answer.")),),
    "not_match_won": (_t(_("The game is said to win the match, but the match goes on.")),),
    "opening": (_t(_("A game starts with the first player's opening roll.")),),
    "out_of_turn": (_t(_("A player acts out of turn.")),),
    "sgf_syntax": (_t(_("The SGF text is not well formed.")),),
    "not_backgammon": (_t(_("The SGF file is not a backgammon game.")),),
    "match_length": (_t(_("The match length differs from the first game's.")),),
    "sgf_setup": (_t(_("Set-up properties are not supported.")),),
    "bad_move": (_t(_("A move that cannot be read.")),),
    # --- game records (engine/records/replay.py) and the command line (engine/cli.py)
    "bad_line": (
        _t(_("“%(word)s” is neither a turn nor an action.")),
        _t(_("A line starts with the side (W or B) followed by a turn or a cube action.")),
    ),
    "wrong_mover": (
        _t(_("%(expected)s has to act here, not %(got)s.")),
        _t(_("The other side has to act here.")),
    ),
    "moves_without_dice": (_t(_("A turn without a roll cannot move checkers.")),),
    "turn_not_expected": (
        _t(_("A turn cannot be played now: the game awaits %(phase)s.")),
        _t(_("A turn cannot be played now.")),
    ),
    "not_started": (_t(_("The record starts with the first turn, not a cube action.")),),
    "unknown_variant": (
        _t(_("Unknown game “%(variant)s”.")),
        _t(_("Unknown game.")),
    ),
    "unreadable_file": (_t(_("The file cannot be read as UTF-8 text.")),),
    "bad_preset_file": (_t(_("The scoring rules file is not valid JSON.")),),
    "format_unavailable": (_t(_("This file format cannot be read here.")),),
    # --- scoring rules (engine/rules/scoring.py)
    "unknown_preset": (
        _t(_("Unknown scoring preset “%(preset)s”.")),
        _t(_("Unknown scoring preset.")),
    ),
    "bad_preset": (_t(_("The scoring rules are not valid: a list of rules is expected.")),),
    "unknown_key": (
        _t(_("Rule %(rule)s: unknown key(s) %(keys)s."), lambda d: "rule" in d),
        _t(_("Unknown key(s) %(keys)s.")),
        _t(_("The scoring rules hold an unknown key.")),
    ),
    "bad_rule": (
        _t(_("Rule %(rule)s is not valid.")),
        _t(_("A scoring rule is not valid.")),
    ),
    "empty_preset_name": (_t(_("The scoring rules need a name.")),),
    "empty_rule_name": (
        _t(_("Rule %(rule)s has no name.")),
        _t(_("The default result needs a name.")),
    ),
    "bad_multiplier": (
        _t(_("Rule %(rule)s: the multiplier must be a positive whole number.")),
        _t(_("A multiplier must be a positive whole number.")),
    ),
    "unknown_condition": (
        _t(_("Rule %(rule)s: unknown condition “%(condition)s”.")),
        _t(_("A scoring rule has an unknown condition.")),
    ),
    "duplicate_condition": (
        _t(_("Rule %(rule)s lists a condition twice.")),
        _t(_("A scoring rule lists a condition twice.")),
    ),
    "duplicate_rule_name": (
        _t(_("Rule %(rule)s: the result “%(name)s” is already defined.")),
        _t(_("Two scoring rules have the same name.")),
    ),
    "unreachable_rule": (
        _t(_("Rule %(rule)s can never apply: rule %(shadowed_by)s matches whenever it would.")),
        _t(_("A scoring rule can never apply.")),
    ),
    "bad_mother_pinned": (_t(_("The position's pinned mothers are not valid.")),),
    # --- Soldiers (engine/soldiers/): options, position text, plays, records, export
    "army_too_large": (
        _t(_("The army has %(total)s class checkers, but a side has only 15.")),
        _t(_("The army has more class checkers than a side's 15.")),
    ),
    "unknown_class": (
        _t(
            _(
                "“%(token)s”: the classes are K (general), G (guard), D (druid), "
                "E (wounded even), O (wounded odd) and P (pawn)."
            )
        ),
        _t(
            _(
                "The classes are K (general), G (guard), D (druid), E (wounded even), "
                "O (wounded odd) and P (pawn)."
            )
        ),
    ),
    "bad_army": (
        _t(_("“%(token)s”: an army gives each class a whole number, like G1."), _has("token")),
        _t(_("An army is class letters with counts, like K1 G1 D1 E1 O1, 15 at most in all.")),
    ),
    "bad_placement": (
        _t(
            _(
                "“%(token)s”: a placement names a class checker and its start point, like G13 "
                "or E6x2 (pawns are not placed: they fill the rest)."
            )
        ),
        _t(_("A placement names each class checker and its start point, like K24 G13 D8 E6 O6.")),
    ),
    "placement_no_room": (
        _t(
            _(
                "%(cls)s on %(point)s: the start has %(room)s checker(s) on that point, fewer "
                "than the class checkers placed there."
            )
        ),
        _t(_("The placement puts more class checkers on a point than the start has there.")),
    ),
    "placement_mismatch": (
        _t(_("Class “%(cls)s”: the placement places %(placed)s, the army has %(army)s.")),
        _t(_("The placement does not place exactly the army's class checkers.")),
    ),
    "army_mismatch": (
        _t(_("%(side)s: the number of checkers of class “%(cls)s” differs from the army's.")),
        _t(_("A side's checker classes differ from the army's.")),
    ),
    "bad_position_text": (
        _t(
            _(
                "A position is written “W: … | B: … | W”: White's checkers, Black's checkers "
                "and the side to move."
            )
        ),
    ),
    "bad_pin": (
        _t(
            _(
                "%(side)s, “%(token)s”: a pinned checker stands alone under the opposing "
                "checkers of a point from 1 to 24, one at most per point and never on both sides."
            )
        ),
        _t(_("A pinned checker in the position is not valid.")),
    ),
    "mixed_point": (
        _t(_("White's point %(point)s holds checkers of both sides, and none of them is pinned.")),
        _t(_("A point holds checkers of both sides, and none of them is pinned.")),
    ),
    "illegal_play": (
        _t(_("%(notation)s is not a legal play of %(dice)s.")),
        _t(_("This is not a legal play of these dice.")),
    ),
    "bad_record": (
        _t(_("A turn of the record needs its dice, play and position."), _turn_given),
        _t(_("This is not a Soldiers game record.")),
    ),
    "position_mismatch": (
        _t(_("The position stored after the turn is not the one its play reaches: %(expected)s.")),
        _t(_("The position stored after the turn is not the one its play reaches.")),
    ),
    "export_unsupported": (
        _t(
            _(
                "A Soldiers game cannot be exported as %(format)s: the format has no room "
                "for checker classes and pinned checkers."
            )
        ),
        _t(_("This format has no room for the checker classes and pinned checkers of Soldiers.")),
    ),
    "unknown_format": (
        _t(_("Unknown export format “%(format)s”.")),
        _t(_("Unknown export format.")),
    ),
    "unknown_variant_option": (
        _t(_("The variant has no option “%(option)s”.")),
        _t(_("The variant has no such option.")),
    ),
    "not_soldiers_position": (
        _t(_("A Soldiers game is played from a position with checker classes.")),
    ),
    # --- numbers and IDs that make no sense (parser robustness)
    "number_too_large": (
        _t(_("Too large a number: %(field)s (at most %(maximum)s).")),
        _t(_("A number in the record is too large.")),
    ),
    "bad_match_info": (
        _t(_("MI[%(key)s:%(value)s]: the value is not a whole number in range.")),
        _t(_("The match information (MI) holds a value out of range.")),
    ),
    "shared_point": (
        _t(_("The position puts checkers of both sides on point %(point)s.")),
        _t(_("The position puts checkers of both sides on one point.")),
    ),
    "bar_not_allowed": (
        _t(_("The position has checkers on the bar, but this game has no hitting.")),
    ),
    "both_closed_out": (
        _t(_("Both sides are on the bar against closed boards: nobody could ever move.")),
    ),
    "both_borne_off": (_t(_("Both sides have borne off all their checkers.")),),
    "crawford_in_money": (_t(_("A money game cannot be the Crawford game.")),),
    "crawford_score": (
        _t(_("At %(score)s in a match to %(length)s this cannot be the Crawford game.")),
        _t(_("At this score this cannot be the Crawford game.")),
    ),
    "cube_in_crawford": (_t(_("The cube cannot be used in the Crawford game.")),),
    "both_won": (
        _t(_("Both players have reached the match length (%(score)s to %(length)s).")),
        _t(_("Both players have reached the match length.")),
    ),
    "double_after_roll": (_t(_("A double is pending although the dice are rolled.")),),
    "double_and_resign": (_t(_("A double and a resignation cannot both be pending.")),),
    "owned_cube_of_one": (_t(_("A cube at 1 cannot be owned by a player.")),),
    # --- the Azerbaijani notation (engine/records/azn.py, azn_replay.py)
    "unsupported_variant": (_t(_("The Azerbaijani notation records short and long nardy only.")),),
    "bad_number": (
        _t(_("Move %(expected)s was expected here.")),
        _t(_("The moves are not numbered in order.")),
    ),
    "bad_field": (
        _t(_("“%(field)s” is not a field (a1…a6, b1…b6, c1…c6, d1…d6).")),
        _t(_("A field is written a1…a6, b1…b6, c1…c6 or d1…d6.")),
    ),
    "bad_count": (
        _t(_("“%(token)s”: %(count)s checkers cannot make one move with these dice.")),
        _t(_("Too many checkers for one move with these dice.")),
    ),
    "bad_lone_field": (
        _t(_("“%(token)s”: a lone field is a bear-off or an entry, and cannot be one here.")),
        _t(_("A lone field is a bear-off or an entry, and cannot be one here.")),
    ),
    "missing_moves": (_t(_("Dice with no moves: write Z when nothing can be played.")),),
    "false_home_mark": (
        _t(_("“*” says all checkers are home after this move, but they are not.")),
    ),
    "false_win_mark": (_t(_("“X” says this turn wins the game, but the game goes on.")),),
}

# Codes that wrap another engine code (``rule``): the message is the inner code's.
WRAPPERS = {"illegal_move", "illegal_turn"}

SIDE_NAMES = {0: _("White"), 1: _("Black"), "white": _("White"), "black": _("Black")}
PHASE_NAMES = {
    "opening": _("the opening roll"),
    "roll": _("a roll, a double or a resignation"),
    "take": _("an answer to the double"),
    "play": _("a play"),
    "resign": _("an answer to the resignation"),
    "finished": _("nothing (the game is over)"),
}
# Which number ``number_too_large`` is about.
NUMBER_NAMES = {
    "point": _("point number"),
    "repeat": _("repeat count"),
    "match_length": _("match length"),
    "game_number": _("game number"),
    "turn_number": _("turn number"),
    "score": _("score"),
    "cube_value": _("cube value"),
    "points": _("points"),
    "move_number": _("move number"),
    "dice": _("dice"),
    "count": _("number of checkers"),
    "match_info": _("match information"),
}
# Data keys that hold a side / a game phase (per code where the same key means other things).
_SIDE_KEYS = {"side", "got", "starter", "owner"}
_PHASE_KEYS = {"phase"}
_SIDE_VALUED = {"wrong_mover": {"expected", "got"}}
# Soldiers: a checker class by its letter (``cls``), an export format (``format``).
CLASS_NAMES = {
    "K": _("general"),
    "G": _("guard"),
    "D": _("druid"),
    "E": _("wounded even"),
    "O": _("wounded odd"),
    "P": _("pawn"),
}
FORMAT_NAMES = {"position_id": "Position ID", "mat": ".mat", "sgf": "SGF"}  # names, not words


def _display(code: str, key: str, value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, int | str) and (key in _SIDE_KEYS or key in _SIDE_VALUED.get(code, set())):
        name = SIDE_NAMES.get(value)
        if name is not None:
            return str(name)
    if code == "number_too_large" and key == "field":
        number = NUMBER_NAMES.get(value)
        return str(number) if number is not None else str(value)
    if key in _PHASE_KEYS:
        name = PHASE_NAMES.get(value)
        return str(name) if name is not None else str(value)
    if isinstance(value, bool):
        return gettext("yes") if value else gettext("no")
    if isinstance(value, list | tuple):
        if key in ("dice", "score", "written", "expected") and all(
            isinstance(v, int) for v in value
        ):
            return "-".join(str(v) for v in value)
        return ", ".join(_display(code, key, v) for v in value)
    if key in ("cls", "format") and isinstance(value, str):
        named = CLASS_NAMES.get(value) if key == "cls" else FORMAT_NAMES.get(value)
        return str(named) if named is not None else value
    if key in ("point", "higher") and value == BAR:
        return gettext("bar")
    return str(value)


def _render(code: str, data: Mapping[str, Any]) -> tuple[str, str]:
    """The sentence and the template it came from ("" for the fallbacks)."""
    if code in WRAPPERS and isinstance(data.get("rule"), str):
        inner = {k: v for k, v in data.items() if k not in ("move", "point", "example")}
        # The record's own words for the move, field and example (not the engine's numbering).
        if "token" in data:
            inner["move"] = data["token"]
        if "field" in data:
            inner["point"] = data["field"]
        if "example" in data:
            inner["example"] = data["example"]
        return _render(str(data["rule"]), inner)
    for template in MESSAGES.get(code, ()):
        if template.placeholders() <= set(data) and (template.when is None or template.when(data)):
            values = {key: _display(code, key, data[key]) for key in template.placeholders()}
            return str(template.text) % values, str(template.text)
    if code in WRAPPERS:
        return gettext("This move breaks the rules of the game."), ""
    return gettext("The input was refused (error “%(code)s”).") % {"code": code}, ""


def message_for(error: EngineError) -> str:
    """The user's sentence for an engine error, with where it happened (move
    number and side, line, character) when the error says so."""
    data = error.data
    text, template = _render(error.code, data)
    token, offset = data.get("token"), data.get("offset")
    if isinstance(offset, int) and isinstance(token, str) and "%(token)s" not in template:
        text = gettext("%(message)s (“%(token)s”, character %(position)s)") % {
            "message": text,
            "token": token,
            "position": offset + 1,
        }
    turn = data.get("turn")
    if isinstance(error, SoldiersRecordError) and _turn_given(data) and isinstance(turn, int):
        # a Soldiers record's turn is a 0-based index: the reader counts from 1
        text = gettext("turn %(number)s of the record: %(message)s") % {
            "number": turn + 1,
            "message": text,
        }
    number, side, line = data.get("move_number"), data.get("side"), data.get("line")
    has_line = isinstance(line, int) and not isinstance(line, bool)
    if isinstance(number, int) and isinstance(side, str) and side in SIDE_NAMES:
        values = {"number": number, "side": SIDE_NAMES[side], "line": line, "message": text}
        if has_line:
            return gettext("move %(number)s, %(side)s, line %(line)s: %(message)s") % values
        return gettext("move %(number)s, %(side)s: %(message)s") % values
    if has_line:
        return gettext("line %(line)s: %(message)s") % {"line": line, "message": text}
    return text


def warning_message(warning: Mapping[str, Any]) -> str:
    """The user's sentence for a kept import warning (``{"line", "code", "data"}``,
    as ``RecordWarning.to_dict`` gives it), with its line."""
    data = warning.get("data")
    text, _template = _render(str(warning.get("code", "")), data if isinstance(data, dict) else {})
    line = warning.get("line")
    if isinstance(line, int) and not isinstance(line, bool):
        return gettext("line %(line)s: %(message)s") % {"line": line, "message": text}
    return text


# --- the engine's result names (scoring presets, resignation levels, game ends)

RESULT_LABELS: dict[str, Promise] = {
    "single": _("single game"),
    "mars": _("mars (gammon)"),
    "home mars": _("home mars"),
    "mars x4": _("mars ×4"),
    "mars x8": _("mars ×8"),
    "koks": _("koks (backgammon)"),
    "gammon": _("gammon"),
    "backgammon": _("backgammon"),
    "pass": _("double passed"),
    "time": _("time"),
}


def result_label(name: str) -> str:
    """The user's words for an engine result name; a custom preset's own
    name (a discipline's custom scoring rules) is shown as its organizer wrote it."""
    label = RESULT_LABELS.get(name)
    return str(label) if label is not None else name


# --- the engine's variant and scoring preset names (admin lists, choices)

VARIANT_LABELS: dict[str, Promise] = {
    "caucasian": _("Caucasian nardy"),
    "chase": _("Chase"),
    "diceless-long": _("long nardy without dice"),
    "dutch": _("Dutch backgammon"),
    "garanquet": _("Garanquet"),
    "hypergammon": _("Hypergammon"),
    "jacquet": _("Jacquet"),
    "long": _("long nardy"),
    "longgammon": _("Longgammon"),
    "nackgammon": _("Nackgammon"),
    "nardegammon": _("Nardegammon"),
    "nauka-short": _("short nardy (Nauka i Zhizn rules)"),
    "nuclear": _("nuclear backgammon"),
    "old-english": _("Old English backgammon"),
    "plakoto": _("Plakoto"),
    "short": _("short nardy (backgammon)"),
    "sudden-death": _("sudden death"),
    "tavla": _("Tavla"),
    "soldiers": _("Soldiers (checker classes)"),
}

PRESET_LABELS: dict[str, Promise] = {
    "long-article": _("long nardy: mars when not all checkers are home"),
    "long-masters": _("long nardy: mars and home mars"),
    "plakoto": _("Plakoto: mars"),
    "short-nauka-1980": _("short nardy (Nauka i Zhizn, 1980s): mars ×2, ×4, ×8"),
    "short-standard": _("short nardy: mars and koks"),
    "single": _("single games only"),
    "tavla": _("Tavla: mars"),
}


def variant_label(name: str) -> str:
    label = VARIANT_LABELS.get(name)
    return str(label) if label is not None else name
