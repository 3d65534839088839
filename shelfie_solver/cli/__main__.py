"""``python -m shelfie_solver.cli``: the ``shelfie-solve`` command where its entry point is not
on the ``PATH`` (a checkout run with ``PYTHONPATH``, or a virtual environment not activated)."""

from shelfie_solver.cli import main

if __name__ == "__main__":  # importing the module (as a walk over every module does) runs nothing
    main(prog_name="shelfie-solve")
