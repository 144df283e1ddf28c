"""The fixed tuning / held-back split of Spider dev and the even question sample, shared by the
question-linking benchmarks (question_linking.py, haystack.py)."""

from __future__ import annotations

import dataclasses

#: Spider dev split in two halves, fixed here once (alternate databases in name order): settings
#: are chosen on the tuning half and checked on the held-back half.
TUNING_DBS = ("battle_death", "concert_singer", "course_teach", "dog_kennels", "museum_visit",
              "orchestra", "poker_player", "student_transcripts_tracking", "tvshow", "world_1")
HELD_BACK_DBS = ("car_1", "cre_Doc_Template_Mgt", "employee_hire_evaluation", "flight_2", "network_1",
                 "pets_1", "real_estate_properties", "singer", "voter_1", "wta_1")
HALVES = (("tuning half", TUNING_DBS), ("held-back half", HELD_BACK_DBS))


def limited(bench, limit: int | None):
    """`limit` questions spread evenly over the benchmark (every k-th), so a short run still
    covers every database and both halves."""
    if not limit or limit >= len(bench.questions):
        return bench
    step = len(bench.questions) / limit
    return dataclasses.replace(bench, questions=[bench.questions[int(i * step)] for i in range(limit)])
