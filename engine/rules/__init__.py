"""The rules of every variant: the board, the variants, dice, plays, scoring,
a game's state and the one ``apply(state, action)`` every recorder calls, and
a match with its score (RULES.md)."""
