#!/usr/bin/python3
"""A FUSE filesystem for test_data_safety.sh: the files of BACKING_DIR, read-only, except
that every read of the file named STUCK blocks until the file RELEASE exists (then fails
with EIO), as a read from a hung network mount does: once the request has reached this
daemon, the kernel's wait is not ended by any signal, SIGKILL included.

  stall_fs.py BACKING_DIR MOUNT_POINT STUCK RELEASE

Needs Debian's python3-fusepy (run with /usr/bin/python3); exits 0 once unmounted.
"""
import errno
import os
import sys
import time

from fusepy import FUSE, FuseOSError, Operations


class StuckRead(Operations):
    def __init__(self, backing, stuck, release):
        self.backing, self.stuck, self.release_path = backing, stuck, release

    def _path(self, path):
        return os.path.join(self.backing, path.lstrip("/"))

    def getattr(self, path, fh=None):
        try:
            info = os.lstat(self._path(path))
        except OSError as error:
            raise FuseOSError(error.errno)
        return {key: getattr(info, key) for key in
                ("st_mode", "st_nlink", "st_size", "st_uid", "st_gid", "st_mtime", "st_atime", "st_ctime")}

    def readdir(self, path, fh):
        return [".", ".."] + os.listdir(self._path(path))

    def open(self, path, flags):
        if flags & (os.O_WRONLY | os.O_RDWR):
            raise FuseOSError(errno.EROFS)
        return os.open(self._path(path), os.O_RDONLY)

    def read(self, path, size, offset, fh):
        if os.path.basename(path) == self.stuck:
            for _ in range(3000):  # the hung read, for 5 minutes at the most
                if os.path.exists(self.release_path):
                    break
                time.sleep(0.1)
            raise FuseOSError(errno.EIO)
        return os.pread(fh, size, offset)

    def release(self, path, fh):
        os.close(fh)


if __name__ == "__main__":
    FUSE(StuckRead(sys.argv[1], sys.argv[3], sys.argv[4]), sys.argv[2], foreground=True,
         direct_io=True, allow_other=True)
