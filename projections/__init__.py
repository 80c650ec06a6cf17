"""Read models: pure folds over the ledger's events, each answerable as of any position."""
