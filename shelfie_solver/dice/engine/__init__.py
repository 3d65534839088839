"""The exact one-turn engine of the dice game (D6, D7; docs/engine.md): the DP over (dice
multiset, re-rolls left) with optimal holds (``dp``), the re-roll transitions it reads
(``transitions``), many board states in one pass (``batched``), the optional compiled numba
kernel (``kernel``) and exact integers beyond int64 (``wide``). docs/architecture.md places the
package."""
