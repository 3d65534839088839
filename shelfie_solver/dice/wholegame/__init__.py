"""Exact play of a whole solitaire game of the dice game (``shelfie-solve solve-game``,
docs/solve-game.md): the solver over sheet states, layer by layer (``solver``), saved value tables
as an objective, a strategy and per-decision losses (``values``), and the seeded random small
boards the solitaire weights are fitted to (``random_boards``). docs/architecture.md places the
package."""
