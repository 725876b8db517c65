"""The tests run against a live toolgate: TOOLGATE_URL and TOOLGATE_API_KEY (the admin key) name it.
`npm test` starts one and runs them (test/clients/python.test.ts)."""
import os

import pytest

from toolgate import Toolgate


@pytest.fixture(scope="session")
def tg():
    if not os.environ.get("TOOLGATE_URL"):
        pytest.exit("set TOOLGATE_URL and TOOLGATE_API_KEY to a running toolgate", returncode=2)
    client = Toolgate()
    yield client
    client.close()


@pytest.fixture()
def session(tg):
    with tg.session(profile="execute") as s:
        yield s
