"""`python -m api.cli`: the `argusic` command, as `argusic serve --workers` starts its workers."""

from api.cli import main

main()
