"""The rules of Argusic and SI-IQ as pure functions and the events they decide.

Nothing here reads a clock, the environment, randomness or any file: all of it is passed in.
"""
