"""The read models of the methodology, one module per page family, each a pure function of the
folded state and the position it answers as of; field names are the contract of
ARCHITECTURE.md ("JSON outputs")."""
