import os

import pytest

# The long form (python -m benchmarks.faults) sets PBEM_FAULTS_LONG=1: every path of every
# game, thousands of hypothesis examples, 1,000 mails with kills.
LONG = os.environ.get("PBEM_FAULTS_LONG") == "1"


def scale(short: int, long: int) -> int:
    return long if LONG else short


@pytest.fixture(scope="session")
def long_form() -> bool:
    return LONG
