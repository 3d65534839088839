"""Rollouts of a kept game's position (``shelfie-solve rollout GAME``, docs/rollout.md), click-free:
one play-out with common random numbers (``playout``), many of them in parallel with early
stopping (``run``), and their report (``report``). docs/architecture.md places the package."""
