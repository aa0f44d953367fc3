import pytest


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory, monkeypatch):
    # CI starts from an empty cache: every test builds what it needs, in a cache of its own session.
    monkeypatch.setenv("NONLIN_CACHE", str(tmp_path_factory.getbasetemp() / "nonlin-cache"))
