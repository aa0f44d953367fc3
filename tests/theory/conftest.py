import pytest
import torch


@pytest.fixture(autouse=True)
def _one_thread():
    # Quadrature is many mid-sized elementwise ops: on a shared 2-core machine one thread is several times
    # faster than two competing ones. Restored after each test so other suites are unaffected.
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
