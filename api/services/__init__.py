"""The use cases, each a function (or small class) over ports; entry points call these."""
