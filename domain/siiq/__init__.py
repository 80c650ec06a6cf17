"""SI-IQ: a capability index of AI models from independently published benchmark results
(`reference/seeds/002_6fed51d9049d50b8.txt`), decided where open by `SIIQ-DECISIONS.md`.

Pure numpy and scipy: no I/O, no clock, no randomness; the same inputs give the same bytes.
"""

METHOD_VERSION = "1.0.0"
"""SI-IQ section 11: the version of the method shown on every data file."""
