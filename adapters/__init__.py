"""The outside world behind small interfaces: each module hides one outside thing."""
