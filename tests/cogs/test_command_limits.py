"""Discord's limits on a command group, checked without Discord: at most 25 subcommands (a
26th fails the cog's load in discord.py) and 4,000 characters of names, descriptions and
choices in all (a bigger group is refused at sync: the fake Discord of the e2e tests
enforces it too)."""

from __future__ import annotations

from typing import Any

from cogs.ofc import OFC, OFCAdmin


def characters(group: Any) -> int:
    total = len(group.__cog_group_name__) + len(group.__cog_group_description__)
    for command in group.__cog_app_commands__:
        total += len(command.name) + len(command.description)
        for p in command.parameters:
            total += len(p.name) + len(p.description)
            total += sum(len(c.name) + (len(c.value) if isinstance(c.value, str) else 0)
                         for c in p.choices)
    return total


def test_the_groups_stay_within_discords_limits() -> None:
    for group in (OFC, OFCAdmin):
        assert len(group.__cog_app_commands__) <= 25, group.__cog_group_name__
        assert characters(group) <= 4000, (group.__cog_group_name__, characters(group))
    assert characters(OFC) > 3000  # (the count above is of what Discord counts)
