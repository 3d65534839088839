"""The advice for one turn of the dice game (``shelfie-solve advise`` and ``play``'s advice,
docs/advise.md): ``advice`` ranks the holds or the markings exactly under an objective (D6-D14,
D19), ``report`` turns that advice into the report every format prints. docs/architecture.md
places the package."""
