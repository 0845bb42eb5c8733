"""FileStorage.load (firmware/hw/storage.py) on a filesystem that raises: a missing file
is a first start, whatever else the OSError carries (CPython's and some ports' carry
the message after the errno); any other failure is saved data the player cannot have
now, and is said."""
import errno

import pytest

from firmware.hw.storage import FileStorage


class RaisingFs:
    def __init__(self, error):
        self.error = error

    def read(self, path):
        raise self.error

    def write(self, path, data):
        raise AssertionError("load writes nothing")


@pytest.mark.parametrize("error", [OSError(errno.ENOENT),
                                   OSError(errno.ENOENT, "No such file or directory"),
                                   FileNotFoundError(errno.ENOENT, "No such file or directory",
                                                     "spit.json")])
def test_a_missing_file_is_a_first_start_with_no_message(error):
    st = FileStorage("spit.json", fs=RaisingFs(error))
    assert st.load() is None and st.message is None


@pytest.mark.parametrize("error", [OSError(errno.EIO), OSError(errno.EIO, "I/O error"),
                                   OSError(), IsADirectoryError(errno.EISDIR, "Is a directory"),
                                   ValueError("bad flash")])
def test_any_other_failure_to_read_is_said(error):
    st = FileStorage("spit.json", fs=RaisingFs(error))
    assert st.load() is None and st.message == "SAVED DATA UNREADABLE"
