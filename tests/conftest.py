import pytest

from pbem.games import register
from tests.support import hiddenpig

register(hiddenpig.SPEC)


@pytest.fixture
def pig():
    return hiddenpig.SPEC
