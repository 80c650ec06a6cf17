"""The use cases: each a function (or a small class) over ports, shared by every entry point
(the CLI, the HTTP API, the runner). No click, no litestar, no adapter is imported here."""
