"""The state of Argusic as the ledger's events make it: a pure fold (`fold.apply`) into one
`Methodology`, and the queries every figure asks of it. Projections store it and answer as of a
position; the offline verifier folds an audit bundle with the very same code."""
