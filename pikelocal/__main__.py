"""`python -m pikelocal` is the same as the `pikelocal` command."""

from pikelocal.cli import main

main()
