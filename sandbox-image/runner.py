"""Code Mode sandbox runner: runs one piece of model-written Python, then exits.

The host starts the container as `python3 -I /opt/codemode/runner.pyc NONCE` (this file,
compiled when the image is built) and talks to
this process over the container's stdin/stdout, one JSON object per line. The contract is
electron/host/sandbox/runner/runner-protocol.md; read it before changing anything here.

Trust model, because it explains most of the choices below: the code runs in this very
process, so it can read, patch or replace anything in this file at run time. Nothing here
is a security boundary. The container is the boundary, and the host treats every line we
send as hostile and counts every limit itself. This runner therefore only tries to be
correct and convenient for honest code; it never tries to enforce a limit (deadline,
output totals, call budget) that the code could simply undo.

Standard library only. Nothing heavy is imported before the code asks for it, except ctypes
(closing /workspace to execution calls the kernel through it: imported here, before the ready
line, a warm container has paid for it before its run), and in a
warm-pool container (started with PRELOAD_FLAG): it imports PRELOAD_MODULES while it waits
for its start line, so a run that uses them does not pay for the import. Each container
serves exactly one run, so whatever state these modules hold cannot reach another run.
"""

import ast
import base64
import builtins
import ctypes
import errno
import io
import itertools
import json
import keyword
import linecache
import os
import re
import struct
import sys
import threading
import traceback
import types

# The file name the code is compiled under. Tracebacks are cut so that the first frame the
# model sees is one of these, and linecache serves its source so the lines show up.
CODE_FILENAME = "<code>"

# Our own file name, as frames record it, to strip the runner's frames from tracebacks. Taken
# from a code object, not __file__: the host runs the compiled runner.pyc, whose frames still
# name runner.py (the image compiles it so).
RUNNER_FILENAME = (lambda: None).__code__.co_filename

# Given as the argument after the nonce (warm-pool containers only; container-spec.ts).
PRELOAD_FLAG = "--preload"

# What a warm container imports while it waits: the libraries most runs use. pyplot under
# the image's Agg backend (MPLBACKEND). Order matters only for speed (each pulls in numpy).
PRELOAD_MODULES = ("numpy", "pandas", "matplotlib", "matplotlib.pyplot")

# The runner's first line to the host, written once it is ready for its start line (after the
# preload imports, if any) and before it reads anything: the warm pool counts a container
# ready only once it has seen this exact line (ready-line.ts), and no code runs before it.
READY_LINE = b'{"type":"ready"}\n'

# A start line's `tools` when it uses the catalog the host staged before it (a catalog line).
STAGED = "staged"

# Exit statuses. 0 also covers "the host went away": nobody is left to read anything else.
EXIT_OK = 0
EXIT_HOST_BUG = 2

# Lone surrogates (e.g. from a file decoded with errors="surrogateescape") cannot be encoded
# as UTF-8, and a line that is not valid UTF-8 would end the run as a protocol violation.
_SURROGATE = re.compile("[\ud800-\udfff]")

# The encoders of the lines (_Host.send) and of a call's arguments (the tool function), made
# once: json.dumps with any option builds a new JSONEncoder each time, on every tool call's path.
# encode() keeps no state between calls, so the code's threads can share them.
_LINE_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_ARGS_JSON = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))


class ToolError(Exception):
    """A tool call failed: the host refused it, or the tool reported an error.

    The message is what the host sent (or why the runner refused to send the call). A call in
    the namespaced form (`await shop.add_item(qty=2)`) also says where and why: `server` and
    `tool` name the namespace and method as the code calls them, and `reason` is one of
    refused, invalid, private, budget, denied, server_error, timeout (None elsewhere)."""

    server = None
    tool = None
    reason = None

    def __init__(self, *args, server=None, tool=None, reason=None):
        super().__init__(*args)
        self.server, self.tool, self.reason = server, tool, reason


# --------------------------------------------------------------------------------------
# Host I/O
# --------------------------------------------------------------------------------------


def _take_protocol_fds():
    """Move the protocol pipe to private descriptors and point 0, 1 and 2 at /dev/null.

    Done first thing, so that nothing the code does later (print to sys.__stdout__,
    os.write(1, ...), a C library's printf, a child process) can put bytes on the host's
    pipe except through the two descriptors returned here. They are non-inheritable, so a
    child process never gets them (os.dup already does this; stated again on purpose)."""
    proto_in = os.dup(0)
    proto_out = os.dup(1)
    os.set_inheritable(proto_in, False)
    os.set_inheritable(proto_out, False)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)  # dup2 keeps 0-2 inheritable: children get /dev/null, as intended
    if null > 2:
        os.close(null)
    return proto_in, proto_out


class _LineReader:
    """Reads the host's byte stream: first past the nonce, then line by line.

    A plain buffer over os.read rather than a file object: the reader thread blocks in
    os.read without holding the GIL, and there is no hidden buffering to reason about when
    handing the stream from the start phase to the reader thread."""

    def __init__(self, fd):
        self._fd = fd
        self._buf = bytearray()

    def _fill(self):
        """Read more bytes; False at EOF. A read error is treated as EOF: either way the
        host can no longer talk to us."""
        try:
            data = os.read(self._fd, 65536)
        except OSError:
            return False
        self._buf += data
        return bool(data)

    def skip_past(self, marker):
        """Discard everything up to and including `marker`; False if EOF comes first.

        dockerode writes the attach request's options into stdin before our first real
        byte, so the stream starts with junk. Only a marker-sized tail is kept while
        searching, so junk of any length costs no memory."""
        while True:
            at = self._buf.find(marker)
            if at >= 0:
                del self._buf[: at + len(marker)]
                return True
            del self._buf[: max(0, len(self._buf) - (len(marker) - 1))]
            if not self._fill():
                return False

    def readline(self):
        """One line without its `\\n`, or None at EOF (a trailing partial line included:
        a host that dies mid-line has gone away just the same)."""
        scanned = 0  # never rescan bytes already searched: lines can be long
        while True:
            at = self._buf.find(b"\n", scanned)
            if at >= 0:
                line = bytes(self._buf[:at])
                del self._buf[: at + 1]
                return line
            scanned = len(self._buf)
            if not self._fill():
                return None


def _host_bug():
    """A line from the host that breaks the protocol. The host is the trusted side, so this
    is a bug there; stop at once with a status the host can recognise."""
    os._exit(EXIT_HOST_BUG)


def _parse_line(line):
    """Decode one host line into a dict, or exit as a host bug."""
    try:
        msg = json.loads(line.decode("utf-8"))
    except Exception:  # bad UTF-8 or JSON (ValueError), absurd nesting (RecursionError)
        _host_bug()
    if type(msg) is not dict:
        _host_bug()
    return msg


def _parse_tools(tools):
    """The catalog as a list of (name, stub, description, schema, deprecated), from the
    `tools` of a start or catalog line; exits as a host bug unless it has the protocol's
    shape."""
    if type(tools) is not list:
        _host_bug()
    catalog = _Catalog()
    for tool in tools:
        if type(tool) is not dict:
            _host_bug()
        name, stub = tool.get("name"), tool.get("stub")
        description, schema = tool.get("description"), tool.get("schema")
        deprecated = tool.get("deprecated", False)
        if not all(type(field) is str for field in (name, stub, description)):
            _host_bug()
        if (schema is not None and type(schema) is not str) or type(deprecated) is not bool:
            _host_bug()
        catalog.append((name, stub, description, schema, deprecated))
        _parse_place(tool, name, catalog.places)
        _parse_keywords(tool, name, catalog.keywords)
    return catalog


def _is_positive_int(value):
    return type(value) is int and value > 0  # type() so that True is not a 1


class _Host:
    """Everything the runner sends, plus the calls waiting for their results."""

    def __init__(self, proto_out, args_max_bytes):
        self.args_max_bytes = args_max_bytes
        self._out = proto_out
        # One lock for every write so that lines from several threads never interleave.
        self._send_lock = threading.Lock()
        self._pending = {}  # call id -> asyncio.Future awaiting its result
        self._pending_lock = threading.Lock()
        self._ids = itertools.count(1)
        self.captures = ()  # set once the output captures exist; flushed before calls

    def send(self, obj, *, last=False):
        """Write one message as one whole line.

        ensure_ascii=False keeps lines short (a non-ASCII character costs its UTF-8 bytes,
        not a 6- or 12-byte escape); json escapes every control character, so the only
        newline written is the one ending the line."""
        self.send_json(_LINE_JSON.encode(obj), last=last)

    def send_json(self, text, *, last=False):
        """Write an already encoded message. "replace" is a last resort so that what we
        write is always valid UTF-8, even if a lone surrogate slipped through."""
        self.send_line(text.encode("utf-8", "replace") + b"\n", last=last)

    def send_line(self, data, *, last=False):
        """Write one whole line, already UTF-8 bytes ending in its only `\\n`.

        With last=True the process exits while still holding the lock: no other thread
        (the code may have started some) can slip a line in after `done`."""
        with self._send_lock:
            try:
                view = memoryview(data)
                while view:  # os.write may write part of a line to a pipe
                    view = view[os.write(self._out, view) :]
            except OSError:
                os._exit(EXIT_OK)  # the host closed our output: it has gone away
            if last:
                os._exit(EXIT_OK)

    def flush_output(self):
        for capture in self.captures:
            capture.flush()

    def register_call(self, future):
        with self._pending_lock:
            call_id = next(self._ids)
            self._pending[call_id] = future
        return call_id

    def take_call(self, call_id):
        with self._pending_lock:
            return self._pending.pop(call_id, None)


def _settle(future, ok, payload):
    """Runs on the future's own event loop (futures are not thread-safe)."""
    if future.done():
        return  # the code stopped waiting (cancelled, e.g. by asyncio.wait_for)
    if ok:
        future.set_result(payload)
    else:
        future.set_exception(ToolError(payload))


class _ResultsThread:
    """The thread that reads the host's results, started while the container waits for its
    run, since a thread's start costs a short run a large part of the runner's own work. It
    reads nothing until the run hands it the protocol's reader. A run whose workspace
    Landlock guards has it bind itself first, since Landlock binds only the thread that asks
    (and those it starts later), and the code can make this thread run a function of its own."""

    def __init__(self):
        self._job = None
        self._answer = None
        self._given = threading.Lock()
        self._given.acquire()
        self._answered = threading.Lock()
        self._answered.acquire()
        self._thread = threading.Thread(target=self._body, name="codemode-results", daemon=True)
        self._thread.start()

    @property
    def native_id(self):
        return self._thread.native_id

    def bind(self, ruleset):
        """This thread restricts itself with the Landlock `ruleset`; returns why it could not,
        or None. The caller waits: no code may run before the restriction holds here."""
        self._job = ("bind", ruleset)
        self._given.release()
        self._answered.acquire()
        return self._answer

    def read(self, reader, host):
        """From now on, every `result` the host sends goes to the call waiting for it."""
        self._job = ("read", reader, host)
        self._given.release()

    def _body(self):
        while True:
            self._given.acquire()
            job, self._job = self._job, None
            if job[0] == "read":
                _read_results(job[1], job[2])
                return
            try:
                self._answer = _restrict_self(job[1])
            except BaseException as exc:
                self._answer = f"Landlock could not be applied ({type(exc).__name__})"
            self._answered.release()


def _read_results(reader, host):
    """Body of the reader thread: hand each `result` to the future waiting for it.

    A thread rather than an asyncio reader because the code may run tool calls on any
    event loop it likes (top-level await, its own asyncio.run, a loop in a thread): the
    future knows its loop, and call_soon_threadsafe wakes it wherever it is."""
    try:
        _read_results_forever(reader, host)
    except BaseException:
        # Never let this thread die quietly (its traceback would even land in the code's
        # captured stderr): with nobody reading results, every call would hang forever.
        _host_bug()


def _read_results_forever(reader, host):
    while True:
        line = reader.readline()
        if line is None:
            # The host closed our input mid-run: it has stopped listening, so nothing the
            # code still does can matter. End now rather than run on unobserved.
            os._exit(EXIT_OK)
        msg = _parse_line(line)
        call_id = msg.get("id")
        ok = msg.get("ok")
        if msg.get("type") != "result" or type(call_id) is not int or type(ok) is not bool:
            _host_bug()
        payload = msg.get("value") if ok else msg.get("message")
        if type(payload) is not str:
            _host_bug()
        future = host.take_call(call_id)
        if future is None:
            _host_bug()  # an id we never sent, or answered twice
        settle = _settle
        call = getattr(future, "codemode_call", None)
        if call is not None:  # a namespaced call reads the whole line (_settle_typed)
            settle, payload = _settle_typed, (call, msg)
        try:
            future.get_loop().call_soon_threadsafe(settle, future, ok, payload)
        except RuntimeError:
            pass  # that loop is closed: the code finished without waiting for this result


# --------------------------------------------------------------------------------------
# What the code sees
# --------------------------------------------------------------------------------------


def _utf16_prefix(text, start, limit):
    """The longest piece of text[start:] that is at most `limit` UTF-16 code units.

    The protocol counts "characters". Python counts code points, JavaScript strings count
    UTF-16 units, where a character outside the BMP (most emoji) is two. Staying within the
    limit in UTF-16 units is within it under either reading, so the host cannot see a
    chunk as too long whichever way it counts."""
    piece = text[start : start + limit]
    if piece.isascii():
        return piece
    while True:
        over = len(piece.encode("utf-16-le", "surrogatepass")) // 2 - limit
        if over <= 0:
            return piece
        # Dropping k code points drops between k and 2k units: halve the excess each round.
        shorter = piece[: len(piece) - (over + 1) // 2]
        if not shorter:
            return piece[:1]  # limit 1 and an astral character: cannot do better
        piece = shorter


class _Capture(io.TextIOBase):
    """sys.stdout / sys.stderr: buffers text and sends it as `output` messages.

    Chunks are at most `chunk` characters; text is sent when the buffer fills, on flush(),
    before every tool call (so output and calls reach the host in the order the code made
    them) and before `done`. It is never written to a descriptor, so it has no fileno()."""

    def __init__(self, host, stream, chunk):
        super().__init__()
        self._host = host
        self._stream = stream
        self._chunk = chunk
        self._parts = []
        self._size = 0  # code points buffered in _parts
        self._lock = threading.Lock()  # threads in the code may print concurrently

    # What libraries probe for on a text stream.
    encoding = "utf-8"
    errors = "strict"
    line_buffering = False

    @property
    def name(self):
        return "<" + self._stream + ">"

    @property
    def mode(self):
        return "w"

    def writable(self):
        return True

    def isatty(self):
        return False

    def reconfigure(self, **_kwargs):
        """Accepted and ignored: code written for Windows consoles often calls
        sys.stdout.reconfigure(encoding="utf-8"), and the capture is UTF-8 already."""

    def write(self, s):
        if not isinstance(s, str):
            raise TypeError(f"write() argument must be str, not {type(s).__name__}")
        written = len(s)
        if not s.isascii():
            s = _SURROGATE.sub("\ufffd", s)  # one for one, so character counts hold
        with self._lock:
            self._parts.append(s)
            self._size += len(s)
            if self._size >= self._chunk:
                self._send(everything=False)
        return written

    def flush(self):
        # Deliberately no closed-check: a stream the code closed still gets its last
        # buffered text to the host (and anything it prints later is kept too).
        with self._lock:
            if self._parts:
                self._send(everything=True)

    def _send(self, everything):
        """Send the buffer in chunks; keep a short tail unless `everything`. Walks with an
        index instead of re-slicing the remainder, so one huge write stays linear."""
        text = "".join(self._parts)
        pos = 0
        while len(text) - pos >= (1 if everything else self._chunk):
            piece = _utf16_prefix(text, pos, self._chunk)
            self._host.send({"type": "output", "stream": self._stream, "data": piece})
            pos += len(piece)
        rest = text[pos:]
        self._parts = [rest] if rest else []
        self._size = len(rest)


def _make_tool(host, name, stub):
    """One `async def NAME(params=None) -> str` for the code, bound to tool `name`."""
    limit = host.args_max_bytes
    # The call line's fixed part after the id, encoded at the tool's first call and kept: not at
    # every run's start for each tool of the catalog (thousands, most never called), and not with
    # json.dumps, which builds an encoder each time (bench/runner-tool-setup.ts).
    line_tool = None

    async def tool(params: dict | None = None) -> str:
        nonlocal line_tool
        if params is None:
            params = {}
        if not isinstance(params, dict):
            raise ToolError(
                f"{name}() takes a dict of arguments (or nothing), not {type(params).__name__}"
            )
        # Checked here so that an obviously bad call fails at once, with a clear message,
        # without costing a round trip. allow_nan=False because NaN is not JSON and would
        # make the whole line a protocol violation; surrogates would make it bad UTF-8.
        try:
            args = _ARGS_JSON.encode(params).encode("utf-8")
            size = len(args)
        except (TypeError, ValueError, RecursionError) as exc:
            raise ToolError(f"{name}() arguments cannot be sent as JSON: {exc}") from None
        if size > limit:
            raise ToolError(
                f"{name}() arguments are {size} bytes, the limit is {limit} bytes"
            )
        # Imported here, not at start-up: importing asyncio (and the ssl, inspect, ... it pulls
        # in) is ~70 ms of CPU in every container, most of whose runs never use it. A tool is
        # awaited, so the code is on an event loop and asyncio is loaded already.
        import asyncio

        future = asyncio.get_running_loop().create_future()
        host.flush_output()
        # Registered before the line goes out, so the result cannot beat its future.
        call_id = host.register_call(future)
        if line_tool is None:  # threads racing here compute the same bytes
            line_tool = b',"tool":' + _LINE_JSON.encode(name).encode("utf-8") + b',"args":'
        # `args` goes out exactly as measured above: the bytes already encoded, not encoded again.
        line = (b'{"type":"call","id":', b"%d" % call_id, line_tool, args, b"}\n")
        host.send_line(b"".join(line))
        return await future

    tool.__name__ = tool.__qualname__ = name
    tool.__doc__ = stub
    tool.__module__ = "__main__"
    return tool


_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")


def _png_size(data):
    """(width, height) from a PNG's header, or None when the bytes are not a PNG."""
    if len(data) < 24 or data[:8] != _PNG_SIGNATURE or data[12:16] != b"IHDR":
        return None
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


class _NotAnImage(ValueError):
    """show() was given the path of a file that is not an image."""


class _Images:
    """show(): attaches PNGs to the run's result, within the limits the host sent at start.

    The host checks every image line itself (order, sizes, base64, PNG header) and ends the
    run on any miss; this side applies the same limits first so that an honest run never
    breaks them, and says on stderr why an image was left out instead."""

    def __init__(self, host, stderr, limits):
        self._host = host
        self._stderr = stderr  # the capture itself: the code may have replaced sys.stderr
        self.per_run = limits["images_per_run"]
        self.max_bytes = limits["image_max_bytes"]
        self.total_max = limits["images_total_bytes"]
        self._chunk = limits["image_chunk_chars"] - limits["image_chunk_chars"] % 4
        self._name_max = limits["image_name_max_chars"]
        self.max_side = limits["image_max_side"]
        self.attach_file = None  # attach(path, name), once the run's globals have it
        self._count = 0
        self._total = 0
        self._lock = threading.Lock()  # one image on the wire at a time

    def show(self, obj=None, name=None):
        """Attach an image to the run's result: the model gets it back as a PNG image.

        `obj` is a matplotlib Figure (or Axes), a PIL image, PNG bytes, or the path of an
        image file; with nothing, every open pyplot figure is attached and closed (what
        plt.show() does here too). `name` is how the result lists it. Limits: at most
        `per_run` images per run, each at most `max_bytes` (a larger one is downscaled), and
        `total_max` bytes for all of them; an image over them is left out with a note on
        stderr. The path of a file that is not an image is attached as a file, as
        attach(path, name) does, and its name returned."""
        if obj is None:
            self.show_figures()
            return None
        try:
            png, default = self._to_png(obj)
        except _NotAnImage:
            if self.attach_file is None:
                raise
            return self.attach_file(obj, name)
        self._attach(png, self._name(name, default))
        return None

    def show_figures(self):
        pyplot = sys.modules.get("matplotlib.pyplot")
        if pyplot is None:
            return
        for number in pyplot.get_fignums():
            figure = pyplot.figure(number)
            self._attach(self._figure_png(figure), self._name(None, f"figure-{number}"))
            pyplot.close(figure)

    def _name(self, name, default):
        if name is not None and not isinstance(name, str):
            raise TypeError(f"show() name must be a str, not {type(name).__name__}")
        text = name or default or f"image-{self._count + 1}"
        if text.lower().endswith(".png"):
            text = text[:-4]
        text = "".join(c if c in _NAME_CHARS else "_" for c in text)[: self._name_max - 4]
        return (text or f"image-{self._count + 1}") + ".png"

    @staticmethod
    def _figure_png(figure):
        buf = io.BytesIO()
        figure.savefig(buf, format="png", bbox_inches="tight")
        return buf.getvalue()

    def _to_png(self, obj):
        """(PNG bytes, default name) for anything show() accepts."""
        if type(obj) is _Content:  # an image a tool returned
            obj = obj.png()
        if hasattr(obj, "savefig"):
            number = getattr(obj, "number", None)  # pyplot's figures have one
            label = obj.get_label() if hasattr(obj, "get_label") else ""
            return self._figure_png(obj), label or (f"figure-{number}" if number else None)
        figure = getattr(obj, "figure", None)
        if figure is not None and hasattr(figure, "savefig"):  # an Axes
            return self._figure_png(figure), None
        if type(obj).__module__.startswith("PIL.") and hasattr(obj, "save"):
            return self._pil_png(obj), None
        if isinstance(obj, (bytes, bytearray, memoryview)):
            data = bytes(obj)
            if data[:8] != _PNG_SIGNATURE:
                raise ValueError("show() takes bytes only when they are a PNG file")
            return data, None
        if isinstance(obj, (str, os.PathLike)):
            path = os.fspath(obj)
            with open(path, "rb") as file:
                data = file.read()
            stem = os.path.splitext(os.path.basename(path))[0]
            if data[:8] == _PNG_SIGNATURE:
                return data, stem
            from PIL import Image  # other formats (JPEG, GIF, ...) become PNG

            try:
                with Image.open(io.BytesIO(data)) as image:
                    return self._pil_png(image), stem
            except Exception:
                raise _NotAnImage(f"show(): {path!r} is not an image file") from None
        raise TypeError(
            "show() takes a matplotlib figure, a PIL image, PNG bytes or an image file's"
            f" path, not {type(obj).__name__}"
        )

    @staticmethod
    def _pil_png(image, **options):
        buf = io.BytesIO()
        try:
            image.save(buf, format="PNG", **options)
        except (OSError, ValueError):  # modes PNG cannot hold (CMYK, ...)
            buf = io.BytesIO()
            image.convert("RGBA").save(buf, format="PNG", **options)
        return buf.getvalue()

    def _fit(self, png):
        """The PNG within max_bytes and max_side: as is, recompressed, or downscaled;
        None if it cannot be brought under."""
        size = _png_size(png)
        if size is None:
            return None
        if len(png) <= self.max_bytes and max(size) <= self.max_side:
            return png
        from PIL import Image

        with Image.open(io.BytesIO(png)) as opened:
            image = opened.copy()
        if max(image.size) > self.max_side:
            image.thumbnail((self.max_side, self.max_side))
        for _ in range(8):
            out = self._pil_png(image, optimize=True)
            if len(out) <= self.max_bytes:
                return out
            # Halving the excess area each round; never below a few pixels.
            scale = min(0.9, (self.max_bytes / len(out)) ** 0.5 * 0.95)
            width, height = image.size
            if width < 16 or height < 16:
                return None
            image = image.resize((max(1, int(width * scale)), max(1, int(height * scale))))
        return None

    def _note(self, text):
        self._stderr.write(f"show(): {text}\n")

    def _attach(self, png, name):
        with self._lock:
            if self._count >= self.per_run:
                self._note(f"{name} was not attached: a run can attach at most {self.per_run} images")
                return
            original = len(png)
            if _png_size(png) is None:
                self._note(f"{name} was not attached: its bytes are not a valid PNG")
                return
            fitted = self._fit(png)
            if fitted is None:
                self._note(
                    f"{name} was not attached: {original} bytes, and it could not be brought"
                    f" under {self.max_bytes} bytes"
                )
                return
            if self._total + len(fitted) > self.total_max:
                self._note(
                    f"{name} was not attached: the run's images would pass {self.total_max}"
                    " bytes together"
                )
                return
            if len(fitted) < original:
                self._note(f"{name} was downscaled from {original} to {len(fitted)} bytes")
            self._count += 1
            self._total += len(fitted)
            image_id = self._count
            # Output printed so far goes first, so the host sees things in the code's order.
            self._host.flush_output()
            self._host.send(
                {"type": "image_start", "id": image_id, "name": name, "bytes": len(fitted)}
            )
            text = base64.b64encode(fitted).decode("ascii")
            for at in range(0, len(text), self._chunk):
                self._host.send_json(
                    '{"type":"image_data","id":%d,"data":"%s"}'
                    % (image_id, text[at : at + self._chunk])
                )
            self._host.send({"type": "image_end", "id": image_id})


class _AfterExecLoader:
    """Wraps a module's loader to run `after(module)` once the module has executed."""

    def __init__(self, inner, after):
        self._inner = inner
        self._after = after

    def create_module(self, spec):
        return self._inner.create_module(spec)

    def exec_module(self, module):
        self._inner.exec_module(module)
        self._after(module)

    def __getattr__(self, name):  # get_source etc., for tracebacks
        return getattr(self._inner, name)


class _PyplotShowHook:
    """Makes plt.show() attach the open figures, without importing matplotlib up front.

    Under the Agg backend plt.show() does nothing; here it does what show() with no argument
    does. The hook patches pyplot right after it is first imported, so `from
    matplotlib.pyplot import show` gets the patched one too."""

    def __init__(self, images):
        self._images = images

    def find_spec(self, fullname, path, target=None):
        if fullname != "matplotlib.pyplot":
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is not None:
            spec.loader = _AfterExecLoader(spec.loader, self._patch)
        return spec

    def _patch(self, pyplot):
        images = self._images

        def show(*args, **kwargs):
            """Attach every open figure to the run's result (and close it)."""
            images.show_figures()

        pyplot.show = show


class _ToolInfo(str):
    """TOOLS[name]: reads as the tool's stub (print it; it is a str, so json.dumps and len
    work as on the stub), with .name, .description (the server's, cut and masked by the host)
    and .schema (its input JSON Schema as a dict, masked; None when the host left it out as
    too large). .schema is parsed afresh on every read: editing it changes nothing else."""

    def __new__(cls, name, stub, description, schema_json):
        info = super().__new__(cls, stub)
        info._name = name
        info._description = description
        info._schema_json = schema_json
        return info

    @property
    def name(self):
        return self._name

    @property
    def stub(self):
        return str.__str__(self)

    @property
    def description(self):
        return self._description

    @property
    def schema(self):
        return None if self._schema_json is None else json.loads(self._schema_json)

    def __repr__(self):
        return str.__str__(self)


# Suggestions for a name the code got wrong (a tool without its server, or misspelt): only names
# up to this long are compared, and at most this many are offered. A tool's name (the part after
# its server's) must be at least _SUGGEST_MIN_RATIO similar (difflib's ratio) to the one
# written, and within _SUGGEST_WINDOW of the closest one's.
_SUGGEST_NAME_MAX = 100
_SUGGESTIONS_MAX = 3
_SUGGEST_MIN_RATIO = 0.6
_SUGGEST_WINDOW = 0.1


def _split_name(name):
    """("server", "tool") of `server__tool`; ("", name) of a name without a server."""
    server, sep, tool = name.partition("__")
    return (server, tool) if sep and server and tool else ("", name)


def _word_at(text, word):
    """Where `word` first stands in `text` as a whole identifier, or -1 (a plain scan)."""
    at = text.find(word)
    while at >= 0:
        before = text[at - 1] if at > 0 else " "
        after = text[at + len(word)] if at + len(word) < len(text) else " "
        if not (before.isalnum() or before == "_" or after.isalnum() or after == "_"):
            return at
        at = text.find(word, at + 1)
    return -1


class _ToolNames:
    """The catalog's names, to say what to write instead of a name that is no tool's.

    A name that is a tool's without its server (`read_text_file` for
    `filesystem__read_text_file`) or close to one is pointed to it; tools their server marks
    deprecated are offered only when no other one is close. Held tools the code names are
    said to be held, with the host's message."""

    def __init__(self, catalog, held):
        self.names = tuple(name for name, *_ in catalog)
        self.known = frozenset(self.names)
        # A deprecated tool's description usually names its successor ("DEPRECATED: Use
        # read_text_file instead."): kept to find it.
        self.deprecated = {tool[0]: tool[2] for tool in catalog if tool[4]}
        self.held = held
        self._places, self._by_call = getattr(catalog, "places", None) or {}, None

    def close_to(self, wrong):
        """The tools `wrong` most likely meant, best first; [] when none is close. A tool's name
        without its server counts as its name; a server named must be that tool's, or close.
        A deprecated tool is replaced by the tool its description names, and offered only when
        no current one is as close."""
        if type(wrong) is not str or not wrong or len(wrong) > _SUGGEST_NAME_MAX:
            return []
        import difflib  # only now: most runs never get a name wrong

        wanted_server, wanted = _split_name(wrong.lower())
        tools = difflib.SequenceMatcher(autojunk=False)
        tools.set_seq2(wanted)
        servers = difflib.SequenceMatcher(autojunk=False)
        servers.set_seq2(wanted_server)
        scored = []
        for name in self.names:
            server, tool = _split_name(name.lower())
            if wanted_server and server and server != wanted_server:
                servers.set_seq1(server)
                if servers.ratio() < _SUGGEST_MIN_RATIO:
                    continue
            tools.set_seq1(tool)
            if tools.real_quick_ratio() < _SUGGEST_MIN_RATIO:
                continue
            if tools.quick_ratio() < _SUGGEST_MIN_RATIO:
                continue
            ratio = tools.ratio()
            if ratio >= _SUGGEST_MIN_RATIO:
                scored.append((-ratio, name))
        if not scored:
            return []
        scored.sort()
        best = -scored[0][0]
        offered = []
        for ratio, name in scored:
            if -ratio < best - _SUGGEST_WINDOW:
                break
            if name in self.deprecated:
                name = self._successor(name) or name
            if name not in offered:
                offered.append(name)
        current = [name for name in offered if name not in self.deprecated]
        return (current or offered)[:_SUGGESTIONS_MAX]

    def _successor(self, name):
        """The current tool of the same server that a deprecated tool's description names."""
        server, _ = _split_name(name)
        text = self.deprecated[name]
        found = None
        for other in self.names:
            if other in self.deprecated or _split_name(other)[0] != server:
                continue
            short = _split_name(other)[1] if server else other
            at = _word_at(text, short)
            if at >= 0 and (found is None or at < found[0]):
                found = (at, other)
        return None if found is None else found[1]

    @staticmethod
    def did_you_mean(names):
        quoted = ", ".join(repr(name) for name in names)
        return f"Did you mean: {quoted}?" if len(names) == 1 else f"Did you mean one of: {quoted}?"

    def named(self, key):
        """The tool a `shop.add_item` key names, or None (the map is made on first use)."""
        if self._by_call is None:
            self._by_call = {f"{ns}.{fn}": name for name, (ns, fn) in self._places.items()}
        return self._by_call.get(key)

    def missing(self, key):
        """What TOOLS[key] says when there is no such tool."""
        if type(key) is not str:
            return f"TOOLS is keyed by tool name (a str), not {type(key).__name__}"
        message = self.held.get(key)
        if message is not None:
            return message
        shown = repr(key if len(key) <= _SUGGEST_NAME_MAX else key[:_SUGGEST_NAME_MAX] + "...")
        close = self.close_to(key)
        if close:
            return f"no tool is named {shown}. {self.did_you_mean(close)}"
        return f'no tool is named {shown}; search_tools("words") lists the tools that match'

    def improve(self, exc):
        """Give each NameError of a tool's name without its server, or of a misspelt one, in
        `exc` and the exceptions chained to it, the names to write instead (in place of
        Python's own suggestion, which may be a deprecated tool or none at all)."""
        seen = set()
        stack = [exc]
        while stack:
            exc = stack.pop()
            if id(exc) in seen:  # chains can loop
                continue
            seen.add(id(exc))
            self._improve_one(exc)
            for sub in (exc.__cause__, exc.__context__, *(getattr(exc, "exceptions", ()) or ())):
                if isinstance(sub, BaseException):
                    stack.append(sub)

    def _improve_one(self, exc):
        wrong = getattr(exc, "name", None)
        if type(exc) is not NameError or type(wrong) is not str:
            return
        if wrong in sys.stdlib_module_names:
            return  # Python says "Did you forget to import ...?", which is the help needed
        close = self.close_to(wrong)
        if not close:
            return
        try:  # Python's own pick, from the code's names and the builtins too
            theirs = traceback._compute_suggestion_error(exc, exc.__traceback__, wrong)
        except Exception:
            theirs = None
        # A name of the code's own (a variable, a builtin) that Python found wins.
        if theirs is not None and theirs not in self.known:
            return
        exc.args = (f"name {wrong!r} is not defined. {self.did_you_mean(close)}",)
        exc.name = None  # so Python adds no suggestion of its own


class _ToolKeyError(KeyError):
    """TOOLS[name] of a name that is no tool's: a KeyError (args[0] is the key, as usual) that
    reads as what to write instead, not as the quoted key alone."""

    def __init__(self, key, message):
        super().__init__(key)
        self.message = message

    def __str__(self):
        return self.message


# Shown in tracebacks as a plain KeyError.
_ToolKeyError.__name__ = _ToolKeyError.__qualname__ = "KeyError"
_ToolKeyError.__module__ = "builtins"


class _Tools(dict):
    """TOOLS: each tool's _ToolInfo by name. A name that is no tool's raises a KeyError saying
    what to write instead, or that the tool is held for the user's review."""

    def __init__(self, tools, names):
        super().__init__(tools)
        self._names = names

    def __missing__(self, key):
        name = self._names.named(key) if type(key) is str else None
        if name is not None:  # `shop.add_item`, as the code calls it
            return self[name]
        raise _ToolKeyError(key, self._names.missing(key))


def _make_search_tools(catalog, limits):
    """search_tools for the code, over the catalog as the host sent it at start.

    Works on a private copy: the code can edit TOOLS, but not what search_tools sees. Its cost
    is linear in the catalog: the query is cut to a bounded number of characters, and each of
    its words is found with str's substring search (worst-case linear in CPython 3.10+), no
    regex. Its answer is bounded too: at most search_max_results entries."""
    # Each tool by the name the code calls it (`shop.add_item`, else its own), as it is listed.
    places = getattr(catalog, "places", None) or {}
    listed = (
        (name if name not in places else "%s.%s" % places[name], stub) for name, stub, *_ in catalog
    )
    entries = tuple((name, name.lower(), stub.lower(), stub) for name, stub in listed)
    default_limit = limits["search_default_results"]
    max_limit = limits["search_max_results"]
    query_max = limits["search_query_max_chars"]

    def search_tools(query: str, limit: int = default_limit, detail: str = "name") -> list[str]:
        """The tools matching `query`, best first: their names, or their stubs with
        detail="stub"; at most `limit` of them (capped, see the run_python description).

        Each word of the query (case-insensitive) scores 2 if it is in a tool's name and 1
        if it is in its stub; tools scoring nothing are left out, ties go by name. Local:
        no call reaches the host."""
        if not isinstance(query, str):
            raise TypeError(f"search_tools() takes a str, not {type(query).__name__}")
        if type(limit) is not int or limit < 1:
            raise ValueError("search_tools() limit must be a positive int")
        if detail not in ("name", "stub"):
            raise ValueError('search_tools() detail must be "name" or "stub"')
        words = query[:query_max].lower().split()
        scored = []
        for i, (name, lname, lstub, _) in enumerate(entries):
            score = sum(2 * (w in lname) + (w in lstub) for w in words)
            if score > 0:
                scored.append((-score, name, i))
        scored.sort()
        best = scored[: min(limit, max_limit)]
        if detail == "stub":
            return [entries[i][3] for _, _, i in best]
        return [name for _, name, _ in best]

    search_tools.__module__ = "__main__"
    return search_tools


def _make_down_tool(name, server, reason):
    """`NAME` of a server that is not running: calling it raises ToolError saying so."""

    async def tool(params: dict | None = None) -> str:
        raise ToolError(f"{name}: server {server!r} is not running: {reason}")

    tool.__name__ = tool.__qualname__ = name
    tool.__doc__ = f"A tool of server {server!r}, which is not running: {reason}"
    tool.__module__ = "__main__"
    return tool


def _make_held_tool(name, message):
    """`NAME` of a tool held for the user's review: calling it raises ToolError saying so.

    The stub never reaches the host, and the host refuses the name too (it is not in the
    catalog), so a call forged on the protocol gets nowhere either."""

    async def tool(params: dict | None = None) -> str:
        raise ToolError(message)

    tool.__name__ = tool.__qualname__ = name
    tool.__doc__ = "A tool held for the user's review in Code Mode: it cannot be called."
    tool.__module__ = "__main__"
    return tool


def _add_held_tools(code, namespace, held):
    """Give every held tool's name the code uses a ToolError stub (not a NameError).

    Only names the code itself uses get one, so globals, TOOLS and search_tools stay the
    catalog's and the held names are not listed to the code; a name the code defines wins."""
    if not held:
        return
    for name in sorted(_names_used(code)):
        message = held.get(name)
        if message is not None and name not in namespace:
            namespace[name] = _make_held_tool(name, message)


def _names_used(code):
    """Every name the compiled code (and the functions, classes and lambdas in it) looks up."""
    names = set()
    stack = [code]
    while stack:
        current = stack.pop()
        names.update(current.co_names)
        stack.extend(c for c in current.co_consts if isinstance(c, types.CodeType))
    return names


def _add_down_tools(code, namespace, down):
    """Give every name the code uses that belongs to a server not running a ToolError stub.

    A server that is down lists no tools, so the catalog cannot name them; what the host does
    know is how their names start (`server__`). Only names the code itself uses get a stub, so
    globals, TOOLS and search_tools stay the catalog's; a name the code defines wins."""
    if not down:
        return
    for name in sorted(_names_used(code)):
        if name in namespace or not name.isidentifier():
            continue
        for prefix, server, reason in down:
            if name.startswith(prefix) and len(name) > len(prefix):
                namespace[name] = _make_down_tool(name, server, reason)
                break


def _code_globals(host, catalog, images, limits, names):
    """The code's __main__ module: only what the protocol promises, nothing of ours.

    A real module installed as sys.modules["__main__"] (rather than a bare dict) so that
    what the code defines behaves as in a normal script: pickle, dataclasses and
    typing.get_type_hints all look classes up through sys.modules[cls.__module__]."""
    module = types.ModuleType("__main__")
    g = module.__dict__
    g["__builtins__"] = builtins
    g["ToolError"] = ToolError
    g["TOOLS"] = _Tools(
        {
            name: _ToolInfo(name, stub, description, schema)
            for name, stub, description, schema, _ in catalog
        },
        names,
    )
    g["search_tools"] = _make_search_tools(catalog, limits)
    g["show"] = images.show
    for name, stub, *_ in catalog:
        # The host's catalog promises unique identifiers that clash with nothing here
        # (it renames clashes with a trailing `_`); anything else is a bug over there.
        if not name.isidentifier() or name in g:
            _host_bug()
        g[name] = _make_tool(host, name, stub)
    return module


# --------------------------------------------------------------------------------------
# Namespaces: each server an object, each tool an async method with keyword arguments
# --------------------------------------------------------------------------------------
#
# `await shop.add_item(qty=2)` sends the same call line as `await shop__add_item({"qty": 2})`
# (the host's bridge checks both alike); only the way the code passes arguments and reads the
# result differs. Everything here is a convenience for honest code, as the rest of the runner.

# A parameter name longer than this is passed only through `**{...}` (tool-signature.ts).
_PARAM_NAME_MAX_CHARS = 64

# The kinds of result items a namespaced call can get besides text (result-form.ts).
_ITEM_KINDS = frozenset(("image", "audio", "resource", "resource_link", "other"))

# ToolError.reason values the host sends (run-types.ts, TOOL_ERROR_REASONS).
_REASONS = frozenset(
    ("refused", "invalid", "private", "budget", "denied", "server_error", "timeout")
)

# Schema keywords that let arguments through under names `properties` does not list: with any
# of them at the top, an unknown keyword is left for the bridge to judge.
_OPENING_KEYWORDS = (
    "patternProperties",
    "unevaluatedProperties",
    "propertyNames",
    "allOf",
    "anyOf",
    "oneOf",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "dependencies",
    "$ref",
    "$dynamicRef",
)


class _Catalog(list):
    """The catalog's tools, as _parse_tools makes them, and where each sits in the code's
    namespaces: {name: (namespace, method)}."""

    def __init__(self):
        super().__init__()
        self.places = {}
        self.keywords = {}  # {name: {keyword: parameter}} of the tools sent without a schema


def _is_name(value):
    """An ASCII identifier that is no keyword: what the host makes namespaces and methods."""
    return (
        type(value) is str
        and value.isascii()
        and value.isidentifier()
        and not keyword.iskeyword(value)
    )


def _parse_place(tool, name, places):
    """The tool's `ns` and `fn` from its catalog entry, when it has them (both or neither)."""
    ns, fn = tool.get("ns"), tool.get("fn")
    if ns is None and fn is None:
        return
    if not (_is_name(ns) and _is_name(fn)):
        _host_bug()
    places[name] = (ns, fn)


def _parse_keywords(tool, name, keywords):
    """The tool's `kw` ({keyword: parameter}, sent when its schema is not), when it has one."""
    kw = tool.get("kw")
    if kw is None:
        return
    if type(kw) is not dict or not all(_is_name(k) and type(v) is str for k, v in kw.items()):
        _host_bug()
    keywords[name] = kw


def _parse_held_methods(held):
    """{(namespace, method): message} of the held tools the host placed in a namespace."""
    methods = {}
    for entry in held:
        ns, fn = entry.get("ns"), entry.get("fn")
        if ns is None and fn is None:
            continue
        if not (_is_name(ns) and _is_name(fn)):
            _host_bug()
        methods[(ns, fn)] = entry["message"]
    return methods


def _parse_down_namespaces(down):
    """{namespace: (server, reason)} of the servers not running that the host named one for."""
    namespaces = {}
    for entry in down:
        ns = entry.get("ns")
        if ns is None:
            continue
        if not _is_name(ns):
            _host_bug()
        namespaces[ns] = (entry["server"], entry["reason"])
    return namespaces


def _keyword_for(name, declared):
    """The keyword that passes property `name`, as the stub shows it, or None (`**{...}` only):
    an ASCII identifier as it is, a Python keyword with a trailing `_` (unless the schema declares
    that name too). tool-signature.ts (keywordFor) maps names the same way."""
    if len(name) > _PARAM_NAME_MAX_CHARS or not name.isascii() or not name.isidentifier():
        return None
    if not keyword.iskeyword(name):
        return name
    alias = name + "_"
    return None if alias in declared else alias


class _Params:
    """A tool's parameters, read from its input schema (what TOOLS[name].schema holds): the
    keyword of each property, the required ones, and whether names the schema does not list are
    refused. Without a schema (the host left it out as too large) nothing is known but the
    keywords the host sent that stand for other names (`from_`): the rest go out as they are,
    and the bridge judges them."""

    __slots__ = ("known", "props", "keywords", "required", "closed")

    def __init__(self, schema_json, keywords=None):
        self.known, self.props, self.keywords = False, {}, dict(keywords or {})
        self.required, self.closed = frozenset(), False
        try:
            schema = None if schema_json is None else json.loads(schema_json)
        except (ValueError, RecursionError):
            schema = None
        if type(schema) is not dict:
            return
        self.keywords = {}
        props = schema.get("properties")
        self.props = props if type(props) is dict else {}
        self.known = True
        declared = set(self.props)
        for name in self.props:
            kw = _keyword_for(name, declared)
            if kw is not None:
                self.keywords[kw] = name
        required = schema.get("required")
        if type(required) is list:
            self.required = frozenset(name for name in required if type(name) is str)
        extra = schema.get("additionalProperties", False)
        self.closed = extra is False and not any(key in schema for key in _OPENING_KEYWORDS)

    def name_of(self, given):
        """The property a keyword passes: its own name, or the one it is the alias of."""
        return self.keywords.get(given, given)

    def arguments(self, kwargs):
        """The call's arguments object. None passed for an optional parameter means "not given",
        as a Python default does: it is left out rather than sent as null."""
        arguments = {}
        for key, value in kwargs.items():
            name = self.keywords.get(key, key)
            if value is None and name not in self.required:
                continue
            arguments[name] = value
        return arguments


# The asyncio.Future subclass of namespaced calls, made on the first one (asyncio is imported
# only once the code awaits something): the reader thread hands it the whole result line.
_TYPED_FUTURE = []


def _typed_future(loop):
    if not _TYPED_FUTURE:
        import asyncio

        class _TypedFuture(asyncio.Future):
            codemode_call = None

        _TYPED_FUTURE.append(_TypedFuture)
    return _TYPED_FUTURE[0](loop=loop)


def _make_method(host, name, ns, fn, stub, params):
    """`await ns.fn(a=1, b="x")`: one tool's method, sending the call line `name` sends."""
    limit = host.args_max_bytes
    line_tool = None  # as in _make_tool: encoded at the first call, then kept

    async def method(*args, **kwargs):
        nonlocal line_tool
        if args:
            raise TypeError(
                f"{ns}.{fn}() takes keyword arguments only: {ns}.{fn}(name=value, ...)"
            )
        arguments = params.arguments(kwargs)
        try:
            data = _ARGS_JSON.encode(arguments).encode("utf-8")
        except (TypeError, ValueError, RecursionError) as exc:
            raise ToolError(
                f"{ns}.{fn}(): its arguments cannot be sent as JSON: {exc}",
                server=ns,
                tool=fn,
                reason="invalid",
            ) from None
        if len(data) > limit:
            raise ToolError(
                f"{ns}.{fn}(): its arguments are {len(data)} bytes, the limit is {limit} bytes",
                server=ns,
                tool=fn,
                reason="refused",
            )
        import asyncio  # loaded already: the code is awaiting

        future = _typed_future(asyncio.get_running_loop())
        future.codemode_call = (ns, fn)
        host.flush_output()
        call_id = host.register_call(future)
        if line_tool is None:
            line_tool = b',"tool":' + _LINE_JSON.encode(name).encode("utf-8") + b',"args":'
        line = (b'{"type":"call","id":', b"%d" % call_id, line_tool, data, b"}\n")
        host.send_line(b"".join(line))
        return await future

    method.__name__ = fn
    method.__qualname__ = f"{ns}.{fn}"
    method.__doc__ = stub
    method.__module__ = "__main__"
    return method


def _make_failing_method(ns, fn, message, reason):
    """A method that raises ToolError(message) and never reaches the host: a held tool, or one
    of a server that is not running."""

    async def method(*args, **kwargs):
        raise ToolError(message, server=ns, tool=fn, reason=reason)

    method.__name__ = fn
    method.__qualname__ = f"{ns}.{fn}"
    method.__doc__ = message
    method.__module__ = "__main__"
    return method


class _Namespace:
    """One server's tools as an object: `await shop.add_item(qty=2)`. Each method is made on
    its first use (a catalog can hold thousands of tools, most never called); dir() lists them,
    and a name that is no tool's raises AttributeError (Python adds the closest name)."""

    # The object's own state sits under a dunder name: no method is ever called that
    # (tool names with dunders get a trailing `_`, python-names.ts).
    __slots__ = ("__dict__", "__codemode__")

    def __init__(self, name, tools, held, down, host):
        self.__codemode__ = (name, tools, held, down, host, {})

    def __getattr__(self, attr):
        name, tools, held, down, host, _ = self.__codemode__
        tool = tools.get(attr)
        if tool is not None:
            method = _make_method(host, tool[0], name, attr, tool[1], _ns_params(self, attr))
        elif attr in held:
            method = _make_failing_method(name, attr, held[attr], "refused")
        elif attr.startswith("__") and attr.endswith("__"):
            # Python's own (copy looks up __deepcopy__, say), never a down server's method. A tool
            # named so is looked up above: the host makes its method `__init___`, no such name.
            raise AttributeError(attr)
        elif down is not None:
            message = f"{name}.{attr}(): server {down[0]!r} is not running: {down[1]}"
            method = _make_failing_method(name, attr, message, "server_error")
        else:
            raise AttributeError(f"{name} has no tool {attr!r}", name=attr, obj=self)
        self.__dict__[attr] = method
        return method

    def __dir__(self):
        return sorted(self.__codemode__[1])

    def __repr__(self):
        name, tools = self.__codemode__[0], self.__codemode__[1]
        return f"<{name}: {len(tools)} tools; dir({name}) lists them>"


# What the runner asks of a namespace, as functions: any method of the object's own (a public
# name) would win over the tool of that name, which __getattr__ is only asked for after it.


def _ns_tool(namespace, fn):
    """(name, stub, schema, deprecated, keywords) of method `fn`, or None."""
    return namespace.__codemode__[1].get(fn)


def _ns_knows(namespace, fn):
    """Whether `fn` is a method there that is no catalog tool's (held, or its server down)."""
    return fn in namespace.__codemode__[2] or namespace.__codemode__[3] is not None


def _ns_params(namespace, fn):
    """The _Params of method `fn`, read from its schema once."""
    cache = namespace.__codemode__[5]
    found = cache.get(fn)
    if found is None:
        tool = namespace.__codemode__[1][fn]
        found = cache[fn] = _Params(tool[2], tool[4])
    return found


def _add_namespaces(g, host, catalog, held, down):
    """Put each namespace in the code's globals; returns {name: _Namespace}. A name already
    taken there (a tool's own name, which the host avoids) keeps what it is."""
    tools = {}
    for name, stub, _description, schema, deprecated in catalog:
        place = catalog.places.get(name)
        if place is not None:
            keywords = catalog.keywords.get(name)
            tools.setdefault(place[0], {})[place[1]] = (name, stub, schema, deprecated, keywords)
    held_by = {}
    for (ns, fn), message in held.items():
        held_by.setdefault(ns, {})[fn] = message
    namespaces = {}
    for ns in sorted(set(tools) | set(held_by) | set(down)):
        if ns in g:
            continue
        namespaces[ns] = g[ns] = _Namespace(
            ns, tools.get(ns, {}), held_by.get(ns, {}), down.get(ns), host
        )
    return namespaces


class _Content:
    """A result item that is not text: its kind ("image", "audio", "resource", "resource_link"
    or "other"), MIME type, size in bytes and URI, never its bytes as text. An image the host
    sent with its data can be attached with show(item); item.data is its bytes (else None)."""

    __slots__ = ("kind", "mime", "size", "uri", "_base64")

    def __init__(self, kind, mime, size, uri, data):
        self.kind, self.mime, self.size, self.uri, self._base64 = kind, mime, size, uri, data

    @property
    def data(self):
        return None if self._base64 is None else base64.b64decode(self._base64)

    def png(self):
        """The image as PNG bytes, for show()."""
        if self.kind != "image" or self._base64 is None:
            raise ValueError(
                f"show() cannot attach {self!r}: only an image a tool sent with its data"
            )
        data = self.data
        if data[:8] == _PNG_SIGNATURE:
            return data
        from PIL import Image  # other formats (JPEG, GIF, ...) become PNG

        with Image.open(io.BytesIO(data)) as image:
            return _Images._pil_png(image)

    def __repr__(self):
        parts = [self.kind] + [part for part in (self.mime, self.uri) if part]
        return f"<{' '.join(parts)}, {self.size} bytes>"

    __str__ = __repr__


def _content_item(item):
    """One item of a `content` result: its text, or a _Content."""
    if type(item) is not dict:
        _host_bug()
    kind = item.get("kind")
    if kind == "text":
        text = item.get("text")
        if type(text) is not str:
            _host_bug()
        return text
    size, mime, uri, data = item.get("bytes"), item.get("mime"), item.get("uri"), item.get("data")
    if kind not in _ITEM_KINDS or type(size) is not int or size < 0:
        _host_bug()
    if not all(field is None or type(field) is str for field in (mime, uri, data)):
        _host_bug()
    return _Content(kind, mime, size, uri, data)


def _typed_value(ns, fn, msg):
    """What a namespaced call returns, from its result line (runner-protocol.md)."""
    value, form = msg["value"], msg.get("form")
    if form is None:
        return value
    if form == "json" or form == "structured":
        invalid = msg.get("invalid")
        if invalid is not None:
            if type(invalid) is not str:
                _host_bug()
            raise ToolError(
                f"{ns}.{fn}(): its result does not match its output schema: {invalid}",
                server=ns,
                tool=fn,
                reason="server_error",
            )
        try:
            parsed = json.loads(value)
        except (ValueError, RecursionError):
            return value  # not JSON after all (or a secret masked inside it): the text
        return parsed if form == "structured" or type(parsed) in (dict, list) else value
    if form == "content":
        items = msg.get("items")
        if type(items) is not list:
            _host_bug()
        values = [_content_item(item) for item in items]
        return values[0] if len(values) == 1 else values
    _host_bug()


def _typed_error(ns, fn, msg):
    """The ToolError of a namespaced call the host refused or that failed: one line naming the
    method and what was wrong, with .server, .tool and .reason."""
    reason, detail = msg.get("reason", "server_error"), msg.get("detail")
    if reason not in _REASONS or not (detail is None or type(detail) is str):
        _host_bug()
    said = " ".join((msg["message"] if detail is None else detail).splitlines())
    return ToolError(f"{ns}.{fn}(): {said}", server=ns, tool=fn, reason=reason)


def _settle_typed(future, ok, payload):
    """_settle for a namespaced call: runs on the future's loop with ((ns, fn), result line)."""
    if future.done():
        return
    (ns, fn), msg = payload
    if not ok:
        future.set_exception(_typed_error(ns, fn, msg))
        return
    try:
        value = _typed_value(ns, fn, msg)
    except ToolError as exc:
        future.set_exception(exc)
        return
    future.set_result(value)


# --------------------------------------------------------------------------------------
# The check before the run: mistakes in direct calls end it before its first statement
# --------------------------------------------------------------------------------------
#
# The code is read with Python's own ast before anything runs. Every direct use of a namespace
# (`shop.add_item(...)`, a name the code never rebinds) is checked against the catalog: an
# unknown tool, an unknown keyword, a missing required argument, a literal of the wrong JSON
# type or outside an enum. Any such mistake is certain to fail when reached, and calls before it
# would already have had their effects; so the run ends here, and no tool is called. What cannot
# be judged from the text (arguments from a dict, a tool chosen at run time) is left alone: the
# bridge checks every call as it is made, this check or not. The check only ever says no to
# what would fail: a schema it cannot read, a name it cannot be sure of, and it stays quiet.
# So does a name the code probes for: an unknown tool (or namespace) inside a `try` whose
# handler catches what it raises (AttributeError, NameError, Exception, or a bare except), or
# one the code asks about first (`if hasattr(shop, "x"): shop.x(...)`, `"x" in dir(shop)`).
# Such code runs, and the access fails at run time as any other: only argument mistakes in a
# call of a known tool stay refused wherever they stand, as no handler makes them right.

# Mistakes described in the report; the rest are counted.
_CHECK_SHOWN_MAX = 10

# The call as written, quoted in the report, is cut to this many characters (on one line).
_CHECK_CALL_MAX_CHARS = 120

# A literal quoted after "got" is cut to this many characters (argument-problems.ts's figure).
_CHECK_GOT_MAX_CHARS = 40

# Enum values listed after "expected one of".
_CHECK_EXPECTED_MAX = 5

# The exception type the run reports when the check ended it.
CHECK_ERROR_TYPE = "ToolCheckError"

# Names whose use means the code may define globals the text does not show.
_DYNAMIC_NAMES = frozenset(("globals", "exec", "eval", "vars", "locals", "__builtins__", "setattr"))

# A literal's JSON kind when it cannot be sent as JSON at all.
_NOT_JSON = "not JSON"

# A value the text does not fix (an f-string): its kind is known, its value not.
_UNKNOWN = object()

# Nodes that bind their `name` (an except clause, a match capture, a type parameter).
_NAMED_NODES = frozenset(
    getattr(ast, name)
    for name in ("ExceptHandler", "MatchAs", "MatchStar", "TypeVar", "ParamSpec", "TypeVarTuple")
    if hasattr(ast, name)
)

# Every node but a name that binds a name: looked up once per node, not compared one by one.
_BINDING_NODES = _NAMED_NODES | {
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.arg,
    ast.alias,
    ast.Global,
    ast.Nonlocal,
    ast.MatchMapping,
}


# Handlers naming these catch AttributeError and NameError too.
_CATCH_ALL = frozenset(("Exception", "BaseException"))

# What each kind of reference raises at run time when its name is unknown.
_UNKNOWN_TOOL_ERROR = "AttributeError"
_UNKNOWN_NAME_ERROR = "NameError"


def _catches(handler, error):
    """Whether an except clause catches `error` (by its name, as the code writes it)."""
    caught = handler.type
    if caught is None:
        return True
    names = caught.elts if type(caught) is ast.Tuple else (caught,)
    return any(type(n) is ast.Name and (n.id == error or n.id in _CATCH_ALL) for n in names)


def _is_call_of(node, name, nargs):
    return (
        type(node) is ast.Call
        and type(node.func) is ast.Name
        and node.func.id == name
        and len(node.args) == nargs
        and not node.keywords
    )


def _probed(test):
    """The (namespace, name) pairs a condition asks about: `hasattr(ns, "x")`, `"x" in dir(ns)`."""
    pairs = set()
    for node in ast.walk(test):
        if _is_call_of(node, "hasattr", 2):
            base, name = node.args
            if type(base) is ast.Name and type(name) is ast.Constant and type(name.value) is str:
                pairs.add((base.id, name.value))
        elif type(node) is ast.Compare and len(node.ops) == 1:
            name, found = node.left, node.comparators[0]
            if (
                type(node.ops[0]) in (ast.In, ast.NotIn)
                and type(name) is ast.Constant
                and type(name.value) is str
                and _is_call_of(found, "dir", 1)
                and type(found.args[0]) is ast.Name
            ):
                pairs.add((found.args[0].id, name.value))
    return pairs


# The statements a `try` runs; a handler's own, its else and its finally are not guarded by it.
_TRY_NODES = tuple(getattr(ast, name) for name in ("Try", "TryStar") if hasattr(ast, name))

# Conditions that can ask about a name before the code uses it.
_TEST_NODES = (ast.If, ast.While, ast.IfExp)


def _guarded(tree):
    """The references the code guards, as node ids: {error: ids of nodes in a `try` body whose
    handlers catch it}, and the ids of `ns.x` nodes under a condition that asks about them. One
    pass, each node carrying the errors caught around it and the names asked about."""
    caught = {_UNKNOWN_TOOL_ERROR: set(), _UNKNOWN_NAME_ERROR: set()}
    probed = set()
    stack = [(tree, (), frozenset())]
    while stack:
        node, errors, pairs = stack.pop()
        for error in errors:
            caught[error].add(id(node))
        t = type(node)
        if t is ast.Attribute and type(node.value) is ast.Name:
            if (node.value.id, node.attr) in pairs:
                probed.add(id(node))
        if t in _TRY_NODES:
            more = (e for e in caught if any(_catches(h, e) for h in node.handlers))
            inner = errors + tuple(e for e in more if e not in errors)
            stack.extend((statement, inner, pairs) for statement in node.body)
            for rest in (node.handlers, node.orelse, node.finalbody):
                stack.extend((statement, errors, pairs) for statement in rest)
            continue
        if t in _TEST_NODES:
            asked = _probed(node.test)
        elif t is ast.BoolOp:
            asked = set().union(*(_probed(value) for value in node.values))
        else:
            asked = None
        if asked:
            pairs = pairs | asked
        stack.extend((child, errors, pairs) for child in ast.iter_child_nodes(node))
    return caught, probed


def _literal(node):
    """(JSON kind, value) of a literal argument, or None when it is not one."""
    t = type(node)
    if t is ast.UnaryOp and type(node.op) in (ast.USub, ast.UAdd):
        inner = _literal(node.operand)
        if inner is None or inner[0] not in ("integer", "number"):
            return None
        return inner[0], -inner[1] if type(node.op) is ast.USub else inner[1]
    if t is ast.Constant:
        value = node.value
        if value is None:
            return "null", None
        if type(value) is bool:
            return "boolean", value
        if type(value) is int:
            return "integer", value
        if type(value) is float:
            finite = value == value and abs(value) != float("inf")  # NaN and inf are no JSON
            return ("number" if finite else _NOT_JSON), value
        if type(value) is str:
            return "string", value
        return _NOT_JSON, value  # bytes, Ellipsis, complex
    if t is ast.JoinedStr:
        return "string", _UNKNOWN
    if t is ast.List or t is ast.Tuple or t is ast.ListComp:
        return "array", _UNKNOWN
    if t is ast.Dict or t is ast.DictComp:
        return "object", _UNKNOWN
    if t is ast.Set or t is ast.SetComp:
        return _NOT_JSON, set()
    return None


def _shown(value):
    """A literal as the report quotes it: "2", True, None, 3.5, a list, a dict."""
    if value is _UNKNOWN:
        return "a value"
    if value is None or type(value) is bool:
        return repr(value)
    if type(value) in (int, float):
        return repr(value)
    if type(value) is str:
        cut = value if len(value) <= _CHECK_GOT_MAX_CHARS else value[:_CHECK_GOT_MAX_CHARS] + "…"
        return json.dumps(cut, ensure_ascii=False)
    if type(value) in (list, tuple):
        return "a list"
    if type(value) is dict:
        return "a dict"
    return f"a {type(value).__name__}"


def _kind_fits(kind, value, types):
    if kind in types:
        return True
    if kind == "integer" and "number" in types:
        return True
    return kind == "number" and "integer" in types and value.is_integer()


def _in_enum(kind, value, values):
    for allowed in values:
        if kind == "string" and type(allowed) is str and allowed == value:
            return True
        if kind == "boolean" and type(allowed) is bool and allowed is value:
            return True
        if kind in ("integer", "number") and type(allowed) in (int, float) and allowed == value:
            return True
        if kind == "null" and allowed is None:
            return True
    return False


def _literal_problem(label, kind, value, schema):
    """What is wrong with literal `value` for a parameter of `schema`, or None."""
    if kind == _NOT_JSON:
        what = {bytes: "bytes", set: "a set"}.get(type(value)) or repr(value)
        return f"{label}: {what} cannot be sent as JSON"
    if type(schema) is not dict:
        return None
    types = schema.get("type")
    types = [types] if type(types) is str else types
    # OpenAPI's `nullable: true`, which the bridge's validator honours, admits None too.
    nullable = kind == "null" and schema.get("nullable") is True
    if type(types) is list and types and all(type(t) is str for t in types) and not nullable:
        if not _kind_fits(kind, value, types):
            return f"{label}: expected {' or '.join(types)}, got {_shown(value)}"
    values = schema.get("enum")
    scalar = (str, int, float, bool, type(None))
    if (
        value is not _UNKNOWN
        and kind in ("string", "integer", "number", "boolean", "null")
        and type(values) is list
        and values
        and all(type(v) in scalar for v in values)
        and not _in_enum(kind, value, values)
    ):
        listed = [_shown(v) for v in values[:_CHECK_EXPECTED_MAX]]
        if len(values) > _CHECK_EXPECTED_MAX:
            listed.append("...")
        return f"{label}: expected one of {', '.join(listed)}, got {_shown(value)}"
    return None


def _closest(wrong, candidates, avoid=()):
    """The candidates closest to `wrong` (difflib's ratio), best first; those in `avoid` (the
    deprecated tools) only when no other is as close. The thresholds of _ToolNames."""
    if len(wrong) > _SUGGEST_NAME_MAX:
        return []
    import difflib  # only now: most runs make no mistake

    matcher = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2(wrong.lower())
    scored = []
    for candidate in candidates:
        matcher.set_seq1(candidate.lower())
        if matcher.real_quick_ratio() < _SUGGEST_MIN_RATIO:
            continue
        if matcher.quick_ratio() < _SUGGEST_MIN_RATIO:
            continue
        ratio = matcher.ratio()
        if ratio >= _SUGGEST_MIN_RATIO:
            scored.append((-ratio, candidate))
    if not scored:
        return []
    scored.sort()
    close = [name for ratio, name in scored if -ratio >= -scored[0][0] - _SUGGEST_WINDOW]
    current = [name for name in close if name not in avoid]
    return (current or close)[:_SUGGESTIONS_MAX]


class _Problem:
    __slots__ = ("node", "text", "signature")

    def __init__(self, node, text, signature=None):
        self.node, self.text, self.signature = node, text, signature


def _signature(stub):
    """The def line of a stub, without its colon: what the report shows of a tool."""
    line = stub.partition("\n")[0]
    return line[:-1] if line.endswith(":") else line


class _CallChecker:
    """One pass over the code's tree: what it binds, and every use of a namespace."""

    def __init__(self, g, namespaces):
        self.g, self.namespaces = g, namespaces
        self.problems = []
        self.tree, self._guards = None, None

    def guarded(self, node, error):
        """Whether the code guards this reference against `error` (found on first need: most
        runs name no unknown tool)."""
        if self._guards is None:
            self._guards = _guarded(self.tree)
        caught, probed = self._guards
        return id(node) in caught[error] or (
            error == _UNKNOWN_TOOL_ERROR and id(node) in probed
        )

    def run(self, tree):
        self.tree = tree
        bound, stored, uses, calls = set(), set(), [], {}
        star = dynamic = False
        # A walk of its own over each node's fields: twice as fast as ast.walk, whose generic
        # child iteration is most of a walk's cost (bench/workbench.ts times the check).
        node_class, stack = ast.AST, [tree]
        while stack:
            node = stack.pop()
            for field in node._fields:
                value = getattr(node, field, None)
                if type(value) is list:
                    for item in value:
                        if isinstance(item, node_class):
                            stack.append(item)
                elif isinstance(value, node_class):
                    stack.append(value)
            t = type(node)
            if t is ast.Name:
                if type(node.ctx) is not ast.Load:
                    bound.add(node.id)
                elif node.id in _DYNAMIC_NAMES:
                    dynamic = True
            elif t is ast.Attribute:
                if type(node.value) is ast.Name:
                    if type(node.ctx) is ast.Load:
                        uses.append(node)
                    else:
                        stored.add((node.value.id, node.attr))
            elif t is ast.Call:
                calls[id(node.func)] = node
            elif t not in _BINDING_NODES:
                continue
            elif t in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
                bound.add(node.name)
            elif t is ast.arg:
                bound.add(node.arg)
            elif t is ast.alias:
                star = star or node.name == "*"
                bound.add((node.asname or node.name).partition(".")[0])
            elif t is ast.Global or t is ast.Nonlocal:
                bound.update(node.names)
            elif t is ast.MatchMapping:
                if node.rest:
                    bound.add(node.rest)
            elif node.name:  # _NAMED_NODES
                bound.add(node.name)
        unsure = star or dynamic
        # In the code's order, as the report lists them: past the mistakes it describes, the
        # rest are only counted, with no costly look for close names (full).
        uses.sort(key=lambda node: (node.lineno, node.col_offset))
        for node in uses:
            base, attr = node.value.id, node.attr
            namespace = self.namespaces.get(base)
            call = calls.get(id(node))
            if namespace is None:
                if call is not None and not unsure and base not in bound:
                    self.unknown_name(call, node, base)
                continue
            if base in bound or (base, attr) in stored:
                continue
            tool = _ns_tool(namespace, attr)
            if tool is None:
                if attr.startswith("__") and attr.endswith("__"):
                    continue  # the object's own (`shop.__doc__`)
                if not _ns_knows(namespace, attr) and not self.guarded(node, _UNKNOWN_TOOL_ERROR):
                    self.unknown_tool(call or node, base, namespace, attr)
                continue
            if call is not None:
                self.check_call(call, base, attr, tool, _ns_params(namespace, attr))
        return self.problems

    def unknown_name(self, call, node, base):
        """`shp.add_item(...)` where `shp` is bound nowhere but close to a namespace's name."""
        if base in self.g or hasattr(builtins, base):
            return
        close = _closest(base, self.namespaces)
        if close and not self.guarded(node, _UNKNOWN_NAME_ERROR):
            quoted = ", ".join(close)
            text = f"name {base!r} is not defined. Did you mean: {quoted}?"
            self.problems.append(_Problem(call, text))

    def full(self):
        """Whether the report already has all the mistakes it describes."""
        return len(self.problems) >= _CHECK_SHOWN_MAX

    def unknown_tool(self, node, base, namespace, attr):
        if self.full():
            self.problems.append(_Problem(node, ""))
            return
        methods = dir(namespace)
        deprecated = [fn for fn in methods if _ns_tool(namespace, fn)[3]]
        close = [f"{base}.{fn}" for fn in _closest(attr, methods, deprecated)]
        # The same name in another namespace: a tool looked for on the wrong server.
        close += [
            f"{name}.{attr}"
            for name, other in self.namespaces.items()
            if name != base and _ns_tool(other, attr)
        ]
        text = f"{base} has no tool {attr!r}."
        if close:
            text += f" Did you mean: {', '.join(close[:_SUGGESTIONS_MAX])}?"
        else:
            text += f" dir({base}) lists its tools."
        signature = None
        if close and "." in close[0]:
            ns, _, fn = close[0].partition(".")
            found = _ns_tool(self.namespaces[ns], fn)
            signature = None if found is None else _signature(found[1])
        self.problems.append(_Problem(node, text, signature))

    def check_call(self, call, base, attr, tool, params):
        said = []
        # A spread (`*items`) may be empty, and then passes nothing: only a plain one is sure.
        if any(type(arg) is not ast.Starred for arg in call.args):
            said.append(f"{base}.{attr}() takes keyword arguments only (name=value)")
        given, open_extra = set(), False
        for kw in call.keywords:
            if kw.arg is None:
                pairs = _literal_pairs(kw.value)
                if pairs is None:
                    open_extra = True
                    continue
                for name, value in pairs:
                    label = json.dumps(name)
                    said += self.argument(params, name, label, value, given, direct=False)
                continue
            said += self.argument(params, kw.arg, kw.arg, kw.value, given, direct=True)
        if params.known and not open_extra:
            needed = [name for name in params.props if name in params.required]
            needed += sorted(name for name in params.required if name not in params.props)
            missing = [name for name in needed if name not in given]
            if missing:
                shown = ", ".join(
                    repr(_keyword_for(name, params.props) or name) for name in missing
                )
                plural = "s" if len(missing) > 1 else ""
                said.append(f"missing required argument{plural} {shown}")
        if said:
            signature = _signature(tool[1])
            self.problems.extend(_Problem(call, text, signature) for text in said)

    def argument(self, params, given_name, label, node, given, direct):
        """The mistakes of one argument; `given_name` is the keyword (or the `**{...}` key)."""
        if not params.known:
            return []
        name = params.name_of(given_name) if direct else given_name
        # Given, whether or not `properties` lists it: a schema can require a name it declares
        # only in a branch (allOf, ...) or leaves to additionalProperties.
        given.add(name)
        if name not in params.props:
            if params.closed:
                return [self.unexpected(params, given_name)]
            return []
        found = _literal(node)
        if found is None:
            return []
        kind, value = found
        if value is None and name not in params.required:
            return []  # None for an optional parameter: not sent
        problem = _literal_problem(label, kind, value, params.props[name])
        return [] if problem is None else [problem]

    def unexpected(self, params, given_name):
        if self.full():
            return ""
        keywords = list(params.keywords) + [
            json.dumps(name) for name in params.props if _keyword_for(name, params.props) is None
        ]
        close = _closest(given_name, list(params.keywords))
        text = f"unexpected keyword argument {given_name!r}"
        if close:
            return text + f". Did you mean: {', '.join(repr(name) for name in close)}?"
        if not keywords:
            return text + "; it takes none"
        return text + f"; its parameters: {', '.join(keywords)}"


def _literal_pairs(node):
    """The (key, value node) pairs of `**{"a": 1}`, or None when it is no such literal."""
    if type(node) is not ast.Dict:
        return None
    pairs = []
    for key, value in zip(node.keys, node.values):
        if type(key) is not ast.Constant or type(key.value) is not str:
            return None
        pairs.append((key.value, value))
    return pairs


def _call_text(source, node):
    """The call as written, on one line, cut."""
    try:
        text = ast.get_source_segment(source, node) or ""
    except Exception:
        text = ""
    text = " ".join(text.split())
    return text if len(text) <= _CHECK_CALL_MAX_CHARS else text[: _CHECK_CALL_MAX_CHARS - 1] + "…"


def _check_before_run(source, g, namespaces, limits):
    """None when the code's direct calls show no mistake (or it cannot be read: the run then
    says why, as it always did); else (the report, its first mistake in one line)."""
    if not namespaces:
        return None
    try:
        tree = ast.parse(source, CODE_FILENAME)
        problems = _CallChecker(g, namespaces).run(tree)
    except Exception:  # SyntaxError, NUL bytes, deep nesting: _run reports those
        return None
    if not problems:
        return None
    problems.sort(key=lambda p: (p.node.lineno, p.node.col_offset))
    count = len(problems)
    mistakes = f"{count} mistake{'s' if count > 1 else ''}"
    head = f"{CHECK_ERROR_TYPE}: {mistakes} found before the code ran (nothing ran, no call made):"
    # One entry per call as written, with each of its mistakes, then the tool's signature.
    calls = {}
    for problem in problems[:_CHECK_SHOWN_MAX]:
        calls.setdefault(id(problem.node), []).append(problem)
    lines, first = [head], None
    for group in calls.values():
        node = group[0].node
        where = f"line {node.lineno}, column {node.col_offset + 1}"
        lines.append(f"{where}: {_call_text(source, node)}")
        lines.extend(f"    {problem.text}" for problem in group)
        if group[0].signature is not None:
            lines.append(f"    {group[0].signature}")
        first = first or f"{where}: {group[0].text}"[: _CHECK_CALL_MAX_CHARS * 4]
    if count > _CHECK_SHOWN_MAX:
        lines.append(f"... and {count - _CHECK_SHOWN_MAX} more")
    text = "\n".join(lines) + "\n"
    cut_at = limits.get("error_max_chars")
    if _is_positive_int(cut_at) and len(text) > cut_at:
        text = text[: cut_at - 3] + "..."
    return text, first


def _end_by_check(host, checked):
    """Report the check's mistakes as the run's end (runner-protocol.md: `done` with `check`);
    exits. Nothing of the code has run, so there is no output to flush."""
    text, first = checked
    exception = {"type": CHECK_ERROR_TYPE, "message": first}
    host.send({"type": "done", "error": text, "exception": exception, "check": True}, last=True)


# Workspaces and attached files: what a run keeps for the next and hands back to the client
# --------------------------------------------------------------------------------------

# Where a container's slot is mounted (container-spec.ts), and the image's /workspace: a
# symlink into the slot's `ws` folder, which the host makes (and fills) only for a run that
# names a workspace. Without one, /workspace dangles: there is none.
WORKSPACE_PATH = "/workspace"
WORKSPACE_SLOT_PATH = "/codemode-slot"
WORKSPACE_DIR = WORKSPACE_SLOT_PATH + "/ws"

# save(name, value) keeps each value as WORKSPACE_PATH/SAVED_DIR/<name>SAVED_SUFFIX.
SAVED_DIR = ".saved"
SAVED_SUFFIX = ".pickle"
SAVED_NAME_MAX_CHARS = 100

# How the start line's workspace says execution beneath the slot is denied: "landlock" (the
# runner asks the kernel, runc), "mount" (the engine mounted it noexec, Podman), "filter" (a
# seccomp filter the runner installs keeps every file from being made executable: gVisor has
# no Landlock and Docker's API cannot mark a bind mount noexec).
DENY_EXEC_WAYS = ("landlock", "mount", "filter")

# Landlock (Linux 5.13+): syscall numbers (the same on every architecture Docker runs) and the
# one right the ruleset handles.
_LANDLOCK_CREATE_RULESET = 444
_LANDLOCK_ADD_RULE = 445
_LANDLOCK_RESTRICT_SELF = 446
_LANDLOCK_ACCESS_FS_EXECUTE = 1
_LANDLOCK_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38
_SECCOMP_SYSCALL = {"x86_64": 317, "aarch64": 277}
_SECCOMP_SET_MODE_FILTER = 1
_SECCOMP_FILTER_FLAG_TSYNC = 1


class WorkspaceError(Exception):
    """The run's workspace cannot be used as asked (none was given, or it cannot be opened)."""


def _workspace_start(entry):
    """The start line's workspace as (name, deny_exec), or None; exits as a host bug unless it
    has the protocol's shape."""
    if entry is None:
        return None
    if type(entry) is not dict:
        _host_bug()
    name, deny = entry.get("name"), entry.get("deny_exec")
    if type(name) is not str or not name or deny not in DENY_EXEC_WAYS:
        _host_bug()
    return name, deny


def _other_threads(known):
    """Whether this process has a thread besides the one asking and the one whose native id is
    `known` (native ones included); True when that cannot be told."""
    me = threading.get_native_id()
    try:
        tasks = {int(task) for task in os.listdir("/proc/self/task")}
    except (OSError, ValueError):
        return True
    return me not in tasks or not tasks <= {me, known}


def _restrict_self(ruleset):
    """Restricts the calling thread, and the threads it starts later, with Landlock's `ruleset`;
    returns why it could not, or None."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return "no_new_privs could not be set"
    if libc.syscall(_LANDLOCK_RESTRICT_SELF, ruleset, 0) != 0:
        return "Landlock could not be applied"
    return None


def _deny_exec_beneath_slot(results):
    """Asks the kernel (Landlock) to refuse executing any file under the slot, for this process
    and its children, for good: a program the code writes to /workspace cannot be run. The
    results thread (`results`) restricts itself too, before this one does. Returns why it could
    not, or None."""
    if _other_threads(results.native_id):
        return "another thread was running when execution had to be denied"
    libc = ctypes.CDLL(None, use_errno=True)
    handled = struct.pack("=Q", _LANDLOCK_ACCESS_FS_EXECUTE)
    ruleset = libc.syscall(_LANDLOCK_CREATE_RULESET, ctypes.c_char_p(handled), len(handled), 0)
    if ruleset < 0:
        return "the kernel has no Landlock (Linux 5.13 or later has it)"
    try:
        slot_top = WORKSPACE_SLOT_PATH.strip("/").split("/")[0]
        # Execution stays allowed beneath every top folder but the slot's (and /workspace,
        # which points into it); the root file system is read-only and /tmp is noexec.
        for name in os.listdir("/"):
            if name in (slot_top, WORKSPACE_PATH.strip("/")):
                continue
            try:
                fd = os.open("/" + name, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                rule = struct.pack("=Qi", _LANDLOCK_ACCESS_FS_EXECUTE, fd)
                if libc.syscall(_LANDLOCK_ADD_RULE, ruleset, _LANDLOCK_RULE_PATH_BENEATH, ctypes.c_char_p(rule), 0) != 0:
                    return "Landlock refused a rule"
            finally:
                os.close(fd)
        problem = results.bind(ruleset)
        if problem is not None:
            return f"{problem} in the results thread"
        return _restrict_self(ruleset)
    finally:
        os.close(ruleset)


# The no-exec filter, per architecture: the syscalls that give a file a mode (with the
# argument holding the mode, and for opens the one holding the flags) and those refused
# outright (extended attributes carry ACLs, which can grant execution; io_uring and openat2
# pass their arguments where a filter cannot read them; gVisor checks a filter before a
# tracer's syscall-entry stop and not after it, so a tracer could rewrite a call it passed).
_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
_MODE_SETTERS = {
    # chmod, fchmod, fchmodat, fchmodat2: the mode is argument 1 or 2.
    "x86_64": {90: 1, 91: 1, 268: 2, 452: 2},
    "aarch64": {52: 1, 53: 2, 452: 2},
}
_CREATORS = {
    # open, openat: (flags, mode); creat, mknod, mknodat: (None, mode).
    "x86_64": {2: (1, 2), 257: (2, 3), 85: (None, 1), 133: (None, 1), 259: (None, 2)},
    "aarch64": {56: (2, 3), 33: (None, 2)},
}
_REFUSED = {
    # setxattr, lsetxattr, fsetxattr, io_uring_setup, openat2, ptrace.
    "x86_64": {
        188: errno.EPERM, 189: errno.EPERM, 190: errno.EPERM, 425: errno.ENOSYS, 437: errno.ENOSYS,
        101: errno.EPERM,
    },
    "aarch64": {
        5: errno.EPERM, 6: errno.EPERM, 7: errno.EPERM, 425: errno.ENOSYS, 437: errno.ENOSYS,
        117: errno.EPERM,
    },
}
_EXEC_BITS = 0o111
_CREATE_FLAGS = 0o100 | 0o20000000  # O_CREAT | __O_TMPFILE, the same on both architectures
_X32_SYSCALL_BIT = 0x40000000


def _no_exec_filter_program(machine):
    """The classic BPF program of the no-exec filter, as (code, jt, jf, k) tuples, or None on
    an architecture it does not know. A mode with an execute bit is refused at creation
    (EACCES) and left unapplied by chmod (the call succeeds and changes nothing, so that
    copying a tree, whose folders carry execute bits, still works); any other syscall of
    another ABI (32-bit, x32) is refused, as its numbers differ."""
    arch = _AUDIT_ARCH.get(machine)
    if arch is None:
        return None
    ld, jeq, jge, jset, ret = 0x20, 0x15, 0x35, 0x45, 0x06
    allow, fail = 0x7FFF0000, 0x00050000

    def arg(index):
        return 16 + 8 * index  # the low word of seccomp_data.args[index], little-endian

    program = [
        (ld, 0, 0, 4),
        (jeq, 1, 0, arch),
        (ret, 0, 0, fail | errno.ENOSYS),
        (ld, 0, 0, 0),
        (jge, 0, 1, _X32_SYSCALL_BIT),
        (ret, 0, 0, fail | errno.ENOSYS),
    ]
    blocks = []
    for number, mode in _MODE_SETTERS[machine].items():
        blocks.append((number, [
            (ld, 0, 0, arg(mode)),
            (jset, 0, 1, _EXEC_BITS),
            (ret, 0, 0, fail | 0),
            (ret, 0, 0, allow),
        ]))
    for number, (flags, mode) in _CREATORS[machine].items():
        body = [] if flags is None else [(ld, 0, 0, arg(flags)), (jset, 0, 3, _CREATE_FLAGS)]
        body += [
            (ld, 0, 0, arg(mode)),
            (jset, 0, 1, _EXEC_BITS),
            (ret, 0, 0, fail | errno.EACCES),
            (ret, 0, 0, allow),
        ]
        blocks.append((number, body))
    for number, error in _REFUSED[machine].items():
        blocks.append((number, [(ret, 0, 0, fail | error)]))
    for number, body in blocks:
        # Each block ends in a return, so the accumulator still holds the syscall's number
        # at the next comparison.
        program.append((jeq, 0, len(body), number))
        program.extend(body)
    program.append((ret, 0, 0, allow))
    return program


def _deny_exec_by_filter():
    """Installs the no-exec filter for this process and its children, for good: no file the
    code makes or changes can carry an execute bit, and the host keeps none with one, so
    nothing in /workspace can be run as a program. Returns why it could not, or None."""
    # os.uname, not the platform module: importing that costs a run some milliseconds.
    machine = os.uname().machine
    program = _no_exec_filter_program(machine)
    if program is None:
        return f"Code Mode knows no seccomp filter for the {machine} architecture"

    class _Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    code = ctypes.create_string_buffer(b"".join(struct.pack("=HBBI", *op) for op in program))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return "no_new_privs could not be set"
    prog = _Program(len(program), ctypes.addressof(code))
    # TSYNC: every thread of the process gets the filter, not only the one asking.
    number = _SECCOMP_SYSCALL[machine]
    if libc.syscall(number, _SECCOMP_SET_MODE_FILTER, _SECCOMP_FILTER_FLAG_TSYNC, ctypes.byref(prog)) != 0:
        return "the kernel refused a seccomp filter for all of the runner's threads"
    return None


def _in_workspace(path):
    """Whether `path` (a str, bytes or path-like; not a descriptor) names something under the
    workspace once symlinks are followed."""
    try:
        text = os.fsdecode(os.fspath(path))
    except TypeError:
        return False
    full = os.path.realpath(text)
    return full == WORKSPACE_DIR or full.startswith(WORKSPACE_DIR + "/")


def _own_before_write(path, truncate):
    """A kept file the run opens for writing is made the run's own first.

    The host links the workspace's kept files into the slot, read-only, so that filling a
    workspace costs a link per file and the kept copy can never change under a run: a write
    to one first replaces it with a copy of its own (or, when the write truncates it anyway,
    just removes it). A file the run made, or already owns, is left as it is."""
    if not _in_workspace(path):
        return
    full = os.path.realpath(os.fsdecode(os.fspath(path)))
    try:
        info = os.lstat(full)
    except OSError:
        return
    import stat as stat_module

    if not stat_module.S_ISREG(info.st_mode) or os.access(full, os.W_OK):
        return
    if truncate:
        os.unlink(full)
        return
    temp = os.path.join(os.path.dirname(full), ".codemode-copy-%d" % os.getpid())
    source = os.open(full, os.O_RDONLY | os.O_CLOEXEC)
    try:
        target = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o666)
        try:
            while True:
                chunk = os.read(source, 1 << 20)
                if not chunk:
                    break
                view = memoryview(chunk)
                while view:
                    view = view[os.write(target, view):]
        finally:
            os.close(target)
    finally:
        os.close(source)
    os.replace(temp, full)


def _install_copy_on_write(no_exec_bits):
    """open(), io.open and os.open make a kept workspace file the run's own before writing.
    Under the no-exec filter, os.open also drops the execute bits of the mode it creates a
    file with (its default, 0o777, has them, and the filter refuses such a creation)."""
    plain_open = builtins.open
    plain_os_open = os.open
    write_flags = os.O_WRONLY | os.O_RDWR

    def open(file, mode="r", *args, **kwargs):
        if isinstance(mode, str) and any(c in mode for c in "wax+"):
            _own_before_write(file, "w" in mode)
        return plain_open(file, mode, *args, **kwargs)

    def os_open(path, flags, mode=0o777, *, dir_fd=None):
        if flags & write_flags:
            _own_before_write(path, bool(flags & os.O_TRUNC))
        if no_exec_bits and flags & _CREATE_FLAGS:
            mode &= ~_EXEC_BITS
        return plain_os_open(path, flags, mode, dir_fd=dir_fd)

    open.__doc__ = plain_open.__doc__
    os_open.__doc__ = plain_os_open.__doc__
    builtins.open = io.open = open
    os.open = os_open


def _open_workspace(workspace, results):
    """Readies /workspace for the code: None when it is ready, else the error the run ends with
    (its code never runs then). `results` is the results thread, not yet reading."""
    name, deny = workspace
    if not os.path.isdir(WORKSPACE_DIR):
        return WorkspaceError(f"the workspace {name!r} was not put in place by the host")
    if deny in ("landlock", "filter"):
        problem = _deny_exec_beneath_slot(results) if deny == "landlock" else _deny_exec_by_filter()
        if problem is not None:
            return WorkspaceError(
                f"the workspace {name!r} cannot be opened on this engine: {problem}, which Code"
                " Mode needs to keep files in /workspace from being run as programs"
            )
    # Files the run makes are readable and writable by the host (which keeps them after the
    # run): nothing here is anyone else's.
    os.umask(0)
    _install_copy_on_write(deny == "filter")
    return None


def _close_workspace():
    """After the code: whatever the run made in /workspace is made readable by the host again,
    should the code have changed its permissions (the host keeps only what it can read)."""
    for top, dirs, files in os.walk(WORKSPACE_DIR):
        for name, mode in [(d, 0o777) for d in dirs] + [(f, 0o666) for f in files]:
            path = os.path.join(top, name)
            try:
                info = os.lstat(path)
                if info.st_uid == os.getuid() and not os.path.islink(path):
                    os.chmod(path, mode)
            except OSError:
                pass


def _no_workspace(what):
    return WorkspaceError(
        f"{what} keeps things in a workspace, and this run has none: call run_python with"
        ' workspace="NAME" (any short name of letters and digits); later runs that give the'
        " same name find what this one left there"
    )


def _saved_path(name):
    if not isinstance(name, str):
        raise TypeError(f"the name must be a str, not {type(name).__name__}")
    plain = name and len(name) <= SAVED_NAME_MAX_CHARS and name[0] != "."
    if not plain or any(c not in _NAME_CHARS for c in name):
        raise ValueError(
            f"{name!r} cannot name a saved value: use up to {SAVED_NAME_MAX_CHARS} letters,"
            " digits, '.', '_' or '-', not starting with '.'"
        )
    return os.path.join(WORKSPACE_PATH, SAVED_DIR, name + SAVED_SUFFIX)


def _make_save_load(workspace):
    """save(name, value) and load(name): Python values kept in the workspace between runs."""

    def save(name, value):
        """Keep `value` in the workspace as `name` (pickled): a later run with the same
        workspace gets it back with load(name). Replaces a value saved before as `name`."""
        if workspace is None:
            raise _no_workspace("save()")
        import pickle

        path = _saved_path(name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        temp = f"{path}.tmp-{os.getpid()}"
        with open(temp, "wb") as file:
            pickle.dump(value, file, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temp, path)

    def load(name):
        """The value saved in the workspace as `name` by this run or an earlier one."""
        if workspace is None:
            raise _no_workspace("load()")
        import pickle

        path = _saved_path(name)
        try:
            file = open(path, "rb")
        except FileNotFoundError:
            saved = sorted(
                entry[: -len(SAVED_SUFFIX)]
                for entry in os.listdir(os.path.dirname(path))
                if entry.endswith(SAVED_SUFFIX)
            ) if os.path.isdir(os.path.dirname(path)) else []
            raise KeyError(
                f"nothing is saved as {name!r} in the workspace {workspace[0]!r}"
                + (f"; saved: {', '.join(saved)}" if saved else "; nothing is saved there yet")
            ) from None
        with file:
            return pickle.load(file)

    return save, load


class _Attachments:
    """attach(path): a file the run made goes back to the client as a link it can read."""

    def __init__(self, host, limits):
        self._host = host
        self.per_run = limits.get("attach_per_run", 0)
        self.max_bytes = limits.get("attach_max_bytes", 0)
        self.total_max = limits.get("attach_total_bytes", 0)
        self._chunk = limits.get("attach_chunk_chars", 4)
        self._name_max = limits.get("attach_name_max_chars", 1)
        self._mime_max = limits.get("attach_mime_max_chars", 1)
        self._count = 0
        self._total = 0
        self._lock = threading.Lock()

    def attach(self, path, name=None):
        """Send the file at `path` (in /workspace, /tmp, anywhere the run can read) back to the
        client with the run's result: it gets a link (codemode://...) it can read the file
        by. `name` is how the link names it (the file's own name unless given). Returns that
        name. At most `per_run` files a run, each at most `max_bytes`."""
        if not isinstance(path, (str, bytes, os.PathLike)):
            raise TypeError(f"attach() takes a file's path, not {type(path).__name__}")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"attach() name must be a str, not {type(name).__name__}")
        with open(path, "rb") as file:
            data = file.read(self.max_bytes + 1)
        if len(data) > self.max_bytes:
            raise ValueError(f"attach(): {os.fspath(path)!r} is over {self.max_bytes} bytes, the most one file may be")
        shown = name or os.path.basename(os.fsdecode(os.fspath(path)))
        shown = "".join(c if c in _NAME_CHARS else "_" for c in shown)[: self._name_max] or "file"
        import mimetypes

        mime = (mimetypes.guess_type(shown)[0] or "application/octet-stream")[: self._mime_max]
        with self._lock:
            if self._count >= self.per_run:
                raise ValueError(f"attach(): a run can attach at most {self.per_run} files")
            if self._total + len(data) > self.total_max:
                raise ValueError(f"attach(): the run's files would pass {self.total_max} bytes together")
            self._count += 1
            self._total += len(data)
            file_id = self._count
            self._host.flush_output()
            self._host.send({"type": "file_start", "id": file_id, "name": shown, "bytes": len(data), "mime": mime})
            text = base64.b64encode(data).decode("ascii")
            for at in range(0, len(text), self._chunk):
                self._host.send_json(
                    '{"type":"file_data","id":%d,"data":"%s"}' % (file_id, text[at : at + self._chunk])
                )
            self._host.send({"type": "file_end", "id": file_id})
        return shown


def _add_workspace_globals(namespace, workspace, host, limits, images):
    """save, load and attach in the code's globals (show() of a file that is no image attaches
    it too); the workspace's name as WORKSPACE (None without one)."""
    save, load = _make_save_load(workspace)
    # The host's catalog renames a tool that would take one of these names (RUNNER_NAMES).
    if any(name in namespace for name in ("save", "load", "attach", "WorkspaceError", "WORKSPACE")):
        _host_bug()
    namespace["save"] = save
    namespace["load"] = load
    namespace["attach"] = images.attach_file = _Attachments(host, limits).attach
    namespace["WorkspaceError"] = WorkspaceError
    namespace["WORKSPACE"] = None if workspace is None else workspace[0]


# --------------------------------------------------------------------------------------
# Running the code and reporting how it ended
# --------------------------------------------------------------------------------------


def _strip_runner_frames(te, seen):
    """Remove the runner's frames from a TracebackException and everything chained to it.

    Frames from runner.py are dropped wherever they are (the tool stubs sit under the
    code's frames). If the code appears in a stack at all, everything before its first
    frame is plumbing (main, asyncio.run, the event loop) and goes too, so the model's
    traceback starts at its own line. Library frames after that stay: they explain."""
    if id(te) in seen:  # chains can loop
        return
    seen.add(id(te))
    frames = [f for f in te.stack if f.filename != RUNNER_FILENAME]
    for i, frame in enumerate(frames):
        if frame.filename == CODE_FILENAME:
            frames = frames[i:]
            break
    te.stack = traceback.StackSummary.from_list(frames)
    for sub in (te.__cause__, te.__context__, *(te.exceptions or ())):
        if sub is not None:
            _strip_runner_frames(sub, seen)


def _format_error(exc, names=None):
    try:
        if names is not None:
            names.improve(exc)
        te = traceback.TracebackException(type(exc), exc, exc.__traceback__, compact=True)
        _strip_runner_frames(te, set())
        # An empty stack (a SyntaxError from compile) prints without the "Traceback" header.
        return "".join(te.format())
    except BaseException:  # a hostile __str__ or the like must not cost us `done`
        return f"{type(exc).__name__}: (the traceback could not be formatted)\n"


# The exception's type name as `done` reports it, cut to this many characters (a class can be
# given any name, of any length).
EXCEPTION_TYPE_MAX_CHARS = 200


def _exception_of(exc, message_max):
    """The exception as data for `done`: its type's name and its message, each cut, so the host
    can say what went wrong in one line without reading it out of the traceback's last lines."""
    try:
        name = type(exc).__name__
        name = name if type(name) is str else "Exception"
    except BaseException:
        name = "Exception"
    try:
        message = str(exc)
    except BaseException:  # a hostile __str__
        message = ""
    if type(message) is not str:
        message = ""
    if isinstance(exc, SyntaxError):
        # str() of a SyntaxError adds the file name; its own message reads better alone.
        message = exc.msg if type(exc.msg) is str else message
        if type(exc.lineno) is int:
            message = f"{message} (line {exc.lineno})"
    return {"type": name[:EXCEPTION_TYPE_MAX_CHARS], "message": message[:message_max]}


def _run(source, namespace, down=(), held=None, names=None):
    """Compile and run the code; None if it finished, else the error for `done`: its text and
    the exception as data (None where there is none, as for a SystemExit with a status)."""
    # Registered so that traceback lines (ours and any the code prints) show the source.
    # mtime None tells linecache.checkcache never to drop it.
    linecache.cache[CODE_FILENAME] = (len(source), None, source.splitlines(True), CODE_FILENAME)
    try:
        code = compile(
            source,
            CODE_FILENAME,
            "exec",
            flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT,
            dont_inherit=True,  # none of the runner's compiler flags leak into the code
        )
        _add_held_tools(code, namespace, held)
        _add_down_tools(code, namespace, down)
        # Code without a top-level await runs right here, outside any event loop, so the
        # common `asyncio.run(main())` works. With one, eval returns a coroutine to drive.
        result = eval(code, namespace)
        if isinstance(result, types.CoroutineType):
            import asyncio  # only now: see the tool function

            asyncio.run(result)
    except SystemExit as exc:
        # As for a script: exit(), exit(None) and exit(0) are a normal end, anything else
        # is reported the way Python would, without a traceback.
        if exc.code is None or (type(exc.code) in (int, bool) and exc.code == 0):
            return None
        try:
            return "".join(traceback.format_exception_only(exc)), None
        except BaseException:
            return "SystemExit\n", None
    except BaseException as exc:  # KeyboardInterrupt included: any way out but success
        return _format_error(exc, names), exc
    return None


def _preload():
    """Import PRELOAD_MODULES, each best effort: a module that is missing or fails to import
    is just not preloaded (the code gets the same error itself if it imports it). Runs after
    _take_protocol_fds, so anything an import prints goes to /dev/null, never to the host."""
    for name in PRELOAD_MODULES:
        try:
            __import__(name)
        except BaseException:
            pass


def _say_ready(proto_out):
    """Write READY_LINE, whole (os.write may write part of it to a pipe). Before any code runs,
    so it is always the first line the host reads from this container."""
    view = memoryview(READY_LINE)
    try:
        while view:
            view = view[os.write(proto_out, view) :]
    except OSError:
        os._exit(EXIT_OK)  # the host closed our output: it has gone away


def main():
    proto_in, proto_out = _take_protocol_fds()
    args = sys.argv[1:]
    if not (len(args) == 1 or (len(args) == 2 and args[1] == PRELOAD_FLAG)) or not args[0]:
        _host_bug()
    marker = args[0].encode("utf-8") + b"\n"
    if len(args) == 2:
        _preload()
    results = _ResultsThread()
    _say_ready(proto_out)

    # A warm container waits here. If its host goes away first, it just ends, quietly.
    reader = _LineReader(proto_in)
    if not reader.skip_past(marker):
        os._exit(EXIT_OK)
    line = reader.readline()
    if line is None:
        os._exit(EXIT_OK)

    # A warm container may get the catalog now, while it idles: parsing it here keeps it off
    # the run's path, and the start line then says "staged" instead of carrying it again.
    staged = None
    first = _parse_line(line)
    if first.get("type") == "catalog":
        staged = _parse_tools(first.get("tools"))
        line = reader.readline()
        if line is None:
            os._exit(EXIT_OK)
        start = _parse_line(line)
    else:
        start = first
    source = start.get("code")
    stdin = start.get("stdin")
    tools = start.get("tools")
    down = start.get("down", [])
    held = start.get("held", [])
    limits = start.get("limits")
    if not (
        start.get("type") == "start"
        and type(source) is str
        and type(stdin) is str
        and (type(tools) is list or (tools == STAGED and staged is not None))
        and type(down) is list
        and type(held) is list
        and type(limits) is dict
        and _is_positive_int(limits.get("args_max_bytes"))
        and _is_positive_int(limits.get("output_chunk_chars"))
        and all(
            _is_positive_int(limits.get(key))
            for key in (
                "images_per_run",
                "image_max_bytes",
                "images_total_bytes",
                "image_chunk_chars",
                "image_name_max_chars",
                "image_max_side",
                "search_default_results",
                "search_max_results",
                "search_query_max_chars",
            )
        )
        and limits["image_chunk_chars"] >= 4
        and limits["image_name_max_chars"] > 4
    ):
        _host_bug()
    # The start's own tools win over a staged catalog (the host never sends both, but if it
    # did, its latest word wins). Nothing keeps the lines' parsed objects after this: the code
    # can walk this process's objects (gc), and should find only the catalog it runs with.
    catalog = staged if tools == STAGED else _parse_tools(tools)
    first = staged = tools = None
    start["tools"] = None
    down_servers = []
    for entry in down:
        if type(entry) is not dict:
            _host_bug()
        fields = (entry.get("prefix"), entry.get("server"), entry.get("reason"))
        if not all(type(field) is str for field in fields) or not fields[0]:
            _host_bug()
        down_servers.append(fields)
    workspace = _workspace_start(start.get("workspace"))
    held_tools = {}
    for entry in held:
        if type(entry) is not dict:
            _host_bug()
        name, message = entry.get("name"), entry.get("message")
        if type(name) is not str or type(message) is not str or not name.isidentifier():
            _host_bug()
        held_tools[name] = message
    # The same entries' namespaced side: which methods are held, which namespaces are down.
    held_methods = _parse_held_methods(held)
    down_namespaces = _parse_down_namespaces(down)

    host = _Host(proto_out, limits["args_max_bytes"])
    chunk = limits["output_chunk_chars"]
    stdout = _Capture(host, "stdout", chunk)
    stderr = _Capture(host, "stderr", chunk)
    host.captures = (stdout, stderr)

    # The __ variants too: `sys.stdout = sys.__stdout__` is a common way to undo a
    # redirect, and must not send the rest of the output to /dev/null.
    sys.stdin = sys.__stdin__ = io.StringIO(stdin)
    sys.stdout = sys.__stdout__ = stdout
    sys.stderr = sys.__stderr__ = stderr
    sys.argv = [CODE_FILENAME]  # as `python -c` would; the nonce is nobody's business now
    sys.dont_write_bytecode = True  # modules the code writes to /tmp: keep the tmpfs for data

    images = _Images(host, stderr, limits)
    show_hook = _PyplotShowHook(images)
    sys.meta_path.insert(0, show_hook)
    preloaded_pyplot = sys.modules.get("matplotlib.pyplot")
    if preloaded_pyplot is not None:
        show_hook._patch(preloaded_pyplot)  # imported before the hook: patch it now
    names = _ToolNames(catalog, held_tools)
    module = _code_globals(host, catalog, images, limits, names)
    namespaces = _add_namespaces(module.__dict__, host, catalog, held_methods, down_namespaces)
    _add_workspace_globals(module.__dict__, workspace, host, limits, images)
    # Our functions keep this file's globals alive through __globals__, so replacing the
    # module entry loses nothing the runner needs.
    sys.modules["__main__"] = module

    # Mistakes in the code's direct calls end the run here, before its first statement.
    checked = _check_before_run(source, module.__dict__, namespaces, limits)
    if checked is not None:
        _end_by_check(host, checked)
    # Once reading, the results thread takes no other job: the workspace binds it first.
    refused = None if workspace is None else _open_workspace(workspace, results)
    results.read(reader, host)
    if refused is None:
        outcome = _run(source, module.__dict__, down_servers, held_tools, names)
    else:
        outcome = (f"WorkspaceError: {refused}\n", refused)
    if workspace is not None:
        try:
            _close_workspace()
        except BaseException:
            pass  # the host keeps what it can read; `done` must go out regardless
    error, raised = (None, None) if outcome is None else outcome
    # The host keeps only the tail of a traceback; cutting it here keeps a huge exception
    # message from turning a normal error into an over-long (protocol-violating) line.
    error_max = limits.get("error_max_chars")
    cut_at = error_max if _is_positive_int(error_max) else None
    if error is not None and cut_at is not None and len(error) > cut_at:
        error = "..." + error[-cut_at:]
    # The message is part of the traceback: no longer than the traceback may be.
    exception = None if raised is None else _exception_of(raised, cut_at or 4096)

    try:
        host.flush_output()
    except BaseException:
        pass  # the code may have broken its streams; `done` must go out regardless
    # os._exit inside send: no atexit handlers, no waiting for threads the code left running.
    done = {"type": "done", "error": error}
    if exception is not None:
        done["exception"] = exception
    host.send(done, last=True)


if __name__ == "__main__":
    main()
