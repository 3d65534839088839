"""Full games of the dice game (RULES.md D1, D5-D20): the immutable events and state
(:mod:`.events`), where the dice come from (:mod:`.dice_sources`), the turn loop (:mod:`.turn`)
and saved games, their replay and files (:mod:`.record`)."""
