"""The fixed split of the 22 dev databases: tune on the first half, report both.

Chosen once by hand to balance the halves: 48 and 47 declared FK pairs, one or two of the
larger classic/BIRD databases each (Chinook vs Northwind + superhero), the Spider databases
spread by size and FK count. It is a constant, never drawn at run time: moving a database
between halves invalidates every held-back figure reported so far.
"""

from __future__ import annotations

from enum import Enum


class Half(str, Enum):
    TUNING = "tuning"
    HELD_BACK = "held_back"


TUNING = (
    "chinook", "student_transcripts_tracking", "dog_kennels", "car_1", "concert_singer",
    "employee_hire_evaluation", "battle_death", "flight_2", "museum_visit", "pets_1", "poker_player",
)
HELD_BACK = (
    "northwind", "superhero", "network_1", "real_estate_properties", "cre_Doc_Template_Mgt",
    "orchestra", "course_teach", "tvshow", "voter_1", "world_1", "singer",
)


def half_of(db_name: str) -> Half | None:
    """The half a database belongs to; None for a database outside the dev corpus."""
    name = db_name.lower()
    if name in {n.lower() for n in TUNING}:
        return Half.TUNING
    if name in {n.lower() for n in HELD_BACK}:
        return Half.HELD_BACK
    return None
