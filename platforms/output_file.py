"""Output files a run cannot destroy by accident: the rules of harness/output_file.hpp for the
Python tools (platforms/generate.py, python3 -m ddl.workload). Standard library only.

A tool that writes a result must (1) refuse before any work when the result could not be written
at all (check_writable), (2) never write over one of its own inputs (check_distinct_files), and
(3) leave the previous file intact when the write fails half-way (AtomicOutput, write_text).

The ddl Python package carries this file as ddl/_output_file.py (python/CMakeLists.txt stages and
installs it), so there is one copy of these rules for the generator and the package.
"""
import itertools
import os
import signal
import stat
import sys


class OutputError(Exception):
    """One message for the user: what could not be written, and why."""


def _skipped(path):
    return path is None or path == "" or path == "-"


def _file_id(path):
    """What makes two paths the same file: device and inode when it exists, else where it would be
    (symlinks resolved as far as they exist, '..' and '.' folded)."""
    try:
        st = os.stat(path)
        return ("inode", st.st_dev, st.st_ino)
    except OSError:
        return ("path", os.path.realpath(os.path.abspath(path)))


def check_distinct_files(inputs, outputs):
    """Raises OutputError naming both paths when an output is the same file as an input or as
    another output. Empty paths, None (an option not given) and '-' (standard output) are skipped."""
    ins = [(p, _file_id(p)) for p in inputs if not _skipped(p)]
    outs = []
    for out in outputs:
        if _skipped(out):
            continue
        oid = _file_id(out)
        for inp, iid in ins:
            if oid == iid:
                raise OutputError(f"output {out} is the same file as input {inp}: writing it would destroy the input")
        for other, other_id in outs:
            if oid == other_id:
                raise OutputError(f"outputs {other} and {out} are the same file: one would overwrite the other")
        outs.append((out, oid))


def _cannot_write(path, reason):
    raise OutputError(f"cannot write {path}: {reason}")


def check_writable(path):
    """Raises OutputError 'cannot write PATH: REASON' when PATH could not be written: it is a
    directory, its directory does not exist or is not writable, the file itself is read-only.
    Call it before the work starts. '-' is accepted."""
    if path == "-":
        return
    if not path:
        _cannot_write("''", "the path is empty")
    if path.endswith("/"):
        _cannot_write(path, "the path names a directory")
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    except OSError as e:
        _cannot_write(path, e.strerror)
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            _cannot_write(path, f"{path} is a directory")
        if not os.access(path, os.W_OK):
            _cannot_write(path, os.strerror(13))
        if not stat.S_ISREG(st.st_mode):
            return  # written in place: the directory does not matter
    # A new file, or a regular file replaced by rename: the directory must take a new entry.
    directory = os.path.dirname(path) or "."
    try:
        dst = os.stat(directory)
    except OSError as e:
        _cannot_write(path, f"directory {directory}: {e.strerror}")
    if not stat.S_ISDIR(dst.st_mode):
        _cannot_write(path, f"{directory} is not a directory")
    if not os.access(directory, os.W_OK | os.X_OK):
        _cannot_write(path, f"directory {directory}: {os.strerror(13)}")


class _Terminated(BaseException):
    """Raised by the signal handler, so the temporary file is removed on the way out."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


_counter = itertools.count()


class AtomicOutput:
    """Writes PATH all-or-nothing:

        with AtomicOutput(path) as out:
            out.write(text)

    The text goes to a hidden temporary file beside PATH, which is flushed, synced and renamed over
    PATH when the block ends normally. On any failure (a write error such as a full disk, an
    exception in the block, SIGINT, SIGTERM) the temporary file is removed and PATH keeps what it
    had. '-' is standard output, and a PATH that exists and is not a regular file (/dev/null, a
    FIFO) is written directly, since a rename cannot replace it. Errors are OutputError."""

    def __init__(self, path, encoding="ascii"):
        self.path, self.encoding = path, encoding
        self._file, self._temp, self._target, self._existed = None, None, None, False
        self._handlers = {}

    def __enter__(self):
        check_writable(self.path)
        if self.path == "-":
            self._file = sys.stdout
            return self
        self._target = os.path.realpath(self.path)  # the rename replaces the file, not a symlink to it
        try:
            st = os.stat(self._target)
            self._existed = True
        except OSError:
            st = None
        if st is not None and not stat.S_ISREG(st.st_mode):
            try:
                self._file = open(self._target, "w", encoding=self.encoding, newline="\n")
            except OSError as e:
                _cannot_write(self.path, e.strerror)
            return self
        self._catch_signals()
        directory, name = os.path.split(self._target)
        fd = None
        try:
            # O_EXCL under a name unique to this process: never someone else's file. Hidden, so a
            # listing during the run shows only finished files.
            for _ in range(100):
                self._temp = os.path.join(directory, f".{name}.tmp.{os.getpid()}.{next(_counter)}")
                try:
                    fd = os.open(self._temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
                    break
                except FileExistsError:
                    continue
            if fd is None:
                raise FileExistsError(17, "every temporary name is taken")
            if st is not None:
                os.fchmod(fd, stat.S_IMODE(st.st_mode))  # replacing a file keeps its permissions
            self._file = open(fd, "w", encoding=self.encoding, newline="\n")
        except OSError as e:
            if fd is not None and self._file is None:
                os.close(fd)
            self._discard()
            _cannot_write(self.path, f"cannot create a temporary file beside it: {e.strerror}")
        return self

    def write(self, text):
        try:
            self._file.write(text)
        except OSError as e:
            self._fail(e)

    def _fail(self, error):
        kept = " (the previous file is left as it was)" if self._temp and self._existed else ""
        _cannot_write(self.path, f"{error.strerror or error}{kept}")

    def _commit(self):
        try:
            self._file.flush()
            if self._temp:
                os.fsync(self._file.fileno())
                self._file.close()
                os.rename(self._temp, self._target)
                self._temp = None
            elif self._file is not sys.stdout:
                self._file.close()
        except OSError as e:
            self._fail(e)

    def __exit__(self, kind, error, traceback):
        try:
            if kind is None:
                self._commit()
        finally:
            self._discard()
            self._release_signals()
        if isinstance(error, _Terminated):
            os.kill(os.getpid(), error.signum)  # the default action, now that nothing is left behind
        return False

    def _discard(self):
        if self._file is not None and self._file is not sys.stdout and not self._file.closed:
            try:
                self._file.close()
            except OSError:
                pass  # the write already failed; the file goes anyway
        if self._temp:
            try:
                os.unlink(self._temp)
            except FileNotFoundError:
                pass
            self._temp = None

    def _catch_signals(self):
        """SIGTERM (and SIGINT where it would kill) at its default action would end the process
        with the temporary file left behind: raise instead, so __exit__ removes it."""
        def handler(signum, frame):
            raise _Terminated(signum)

        for signum in (signal.SIGINT, signal.SIGTERM):
            try:
                if signal.getsignal(signum) == signal.SIG_DFL:
                    self._handlers[signum] = signal.signal(signum, handler)
            except ValueError:
                return  # not the main thread: signals cannot be caught here

    def _release_signals(self):
        for signum, previous in self._handlers.items():
            signal.signal(signum, previous)
        self._handlers = {}


def write_text(path, text, encoding="ascii"):
    """PATH all-or-nothing with TEXT ('-': standard output); OutputError when it failed."""
    with AtomicOutput(path, encoding) as out:
        out.write(text)
