"""The games: one package per game, each with its rules engine (a
:class:`paiju.rules.engine.Game` subclass) in its ``game`` module, exported
by the package, and its parts in modules named by purpose. They register as
``paiju.games`` entry points (pyproject.toml; :mod:`paiju.rules.registry`).
The shared engine parts (the interface, cards, errors, the registry) are in
:mod:`paiju.rules`.
"""
