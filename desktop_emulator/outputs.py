"""What an output may be written to: a regular file or a new name, never anything else.

A replay is written to a temporary file renamed over its name, and screenshots, GIFs
and frames are written straight into theirs; onto a device (``/dev/full``), a pipe or
a symbolic link either would replace the link or the device node, or write through
it somewhere the user did not name. So those are refused, with the reason.
"""

import errno
import os
import stat


def not_regular(path):
    """Why `path` is no place for an output file (one phrase), or None: it does not
    exist yet, or it is a regular file."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as e:
        return e.strerror or str(e)
    if stat.S_ISLNK(st.st_mode):
        return ("it is a symbolic link (name the file it points to, or a new file)")
    if stat.S_ISDIR(st.st_mode):
        return "it is a directory"
    if not stat.S_ISREG(st.st_mode):
        return ("it is not a regular file (a device, a pipe or a socket); outputs go to "
                "regular files or new names")
    return None


def refuse(path):
    """Raise OSError with the reason if `path` is no place for an output file."""
    why = not_regular(path)
    if why:
        raise OSError(errno.EINVAL, why, path)


def file_system_of(directory):
    """The file system type `directory` is on ("proc", "sysfs" ...), or None when it
    cannot be told (not Linux)."""
    try:
        with open("/proc/self/mounts", encoding="utf-8", errors="replace") as f:
            mounts = [line.split() for line in f]
    except OSError:
        return None
    best, kind = "", None
    d = os.path.realpath(directory)
    for m in mounts:
        if len(m) < 3:
            continue
        point = m[1].replace("\\040", " ")
        if (d == point or d.startswith(point.rstrip("/") + "/")) and len(point) > len(best):
            best, kind = point, m[2]
    return kind
