"""`python -m specbridge` runs the command line."""

from .cli import main

main()
