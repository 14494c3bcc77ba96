"""Records of games and matches: the notation of a move, a format-neutral match
record and its replay through the rules, and the file formats (.mat, .sgf,
AZN, GNU Backgammon's Position and Match IDs).  Records read and write; the
rules decide."""
