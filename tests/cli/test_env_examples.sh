#!/usr/bin/env bash
# test_env_examples.sh RIG PLUGIN — `rig env serve` of the two example
# environments, driven over the control channel's TCP wire (newline-
# delimited JSON-RPC) by a small Python client, as a harness would:
#
#   - examples/tasks.json (the taskset over examples/repo): every task
#     scores 0 for a wrong answer and 1 for the right one; for the workspace
#     tasks the fix is made in the session's workspace directory from the
#     start result, as an agent would; the fix-bug grader reports its
#     subscores and catches an agent that edits the tests instead; one
#     session's edits do not reach another's workspace or the template;
#   - PLUGIN (examples/env_plugin.so): hello shows the capability its
#     initialize hook published, generated problems are the same for the
#     same seed, right answers score 1, wrong 0, a wrong unit 0.75;
#   - a missing file, invalid JSON and an unknown grader type make
#     `rig env serve` exit 1 or 2 with a message naming the problem.
#
# RIG_TEST_WRAPPER (e.g. "valgrind -q --error-exitcode=99") runs every
# `rig env serve` under it. TAP output.
set -u
rig=$1
plugin=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
examples=$(cd "$here/../../examples" && pwd)
if ! command -v python3 >/dev/null; then
  echo "1..0 # SKIP python3 not found"
  exit 0
fi
exec python3 - "$rig" "$plugin" "$examples" <<'PY'
import json, os, re, select, shlex, shutil, signal, socket, subprocess, sys, tempfile, time

rig, plugin, examples = sys.argv[1], sys.argv[2], sys.argv[3]
wrap = shlex.split(os.environ.get("RIG_TEST_WRAPPER", ""))
tasks_json = os.path.join(examples, "tasks.json")
template = os.path.join(examples, "repo")
tmp = tempfile.mkdtemp(prefix="rig-env-examples-")
# Generous: a loaded machine, or valgrind, is slow to start and to grade.
START_DEADLINE = 60 if not wrap else 180
RPC_DEADLINE = 180

n = 0
failed = 0
servers = []


def ok(cond, name, diag=None):
    global n, failed
    n += 1
    print(("ok %d - %s" if cond else "not ok %d - %s") % (n, name))
    if not cond:
        failed += 1
        if diag is not None:
            text = diag if isinstance(diag, str) else json.dumps(diag, indent=1, default=str)
            for line in text.splitlines():
                print("# " + line)
    sys.stdout.flush()
    return cond


def check(name, fn):
    """Runs fn(); it returns True, or (cond, diag). An exception fails it."""
    try:
        r = fn()
        if isinstance(r, tuple):
            return ok(bool(r[0]), name, r[1])
        return ok(bool(r), name)
    except Exception:  # noqa: BLE001 — any failure is a failed check
        import traceback
        return ok(False, name, traceback.format_exc())


class Server:
    """`rig env serve PATH --port 0`; port from its RIG_SERVE_PORT line."""

    def __init__(self, path):
        self.err_path = os.path.join(tmp, "serve%d.err" % len(servers))
        self.err = open(self.err_path, "w+b")
        self.proc = subprocess.Popen(wrap + [rig, "env", "serve", path, "--port", "0"],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=self.err)
        servers.append(self)
        self.out = b""
        self.port = None
        deadline = time.monotonic() + START_DEADLINE
        fd = self.proc.stdout.fileno()
        while self.port is None and time.monotonic() < deadline:
            # Whole lines only: the number may arrive in several reads.
            for line in self.out.split(b"\n")[:-1]:
                m = re.fullmatch(rb"RIG_SERVE_PORT=(\d+)", line.strip())
                if m:
                    self.port = int(m.group(1))
                    break
            if self.port is not None:
                break
            r, _, _ = select.select([fd], [], [], 0.2)
            if r:
                chunk = os.read(fd, 4096)
                if not chunk:
                    break  # exited before it was ready
                self.out += chunk

    def stderr(self):
        self.err.flush()
        with open(self.err_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def stop(self):
        """SIGTERM; the exit status (None if it had to be killed)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None


class Client:
    """One control-channel connection: a session of its own."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=RPC_DEADLINE)
        self.buf = b""
        self.next_id = 1

    def call(self, method, params=None):
        """The reply: {"result": ...} or {"error": ...}."""
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            msg["params"] = params
        self.next_id += 1
        self.sock.sendall(json.dumps(msg).encode() + b"\n")
        while b"\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("the server closed the connection")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        reply = json.loads(line)
        if reply.get("id") != msg["id"]:
            raise ValueError("reply to another request: %r" % reply)
        return reply

    def result(self, method, params=None):
        reply = self.call(method, params)
        if "result" not in reply:
            raise RuntimeError("%s: %r" % (method, reply))
        return reply["result"]

    def start(self, task, args=None):
        return self.result("tasks.start", {"id": task, "args": args or {}})

    def grade(self, answer):
        return self.result("tasks.grade", {"answer": answer})

    def close(self):
        try:
            self.call("bye")
        except Exception:  # noqa: BLE001 — closing anyway
            pass
        self.sock.close()


def subscores(grade):
    return {s["name"]: s["value"] for s in grade.get("subscores", [])}


def fix(ws):
    """What an agent's edit_file does: the loop stops before the NUL."""
    path = os.path.join(ws, "src", "wordcount.c")
    with open(path) as f:
        text = f.read()
    assert text.count("i <= len") == 1, "the bug is not where it was"
    with open(path, "w") as f:
        f.write(text.replace("i <= len", "i < len"))


def source(ws, rel="src/wordcount.c"):
    with open(os.path.join(ws, rel)) as f:
        return f.read()


def cleanup():
    for s in servers:
        if s.proc.poll() is None:
            s.proc.kill()
            s.proc.wait()
    shutil.rmtree(tmp, ignore_errors=True)


# ---- the template repository itself ----------------------------------------

def repo_checks():
    work = os.path.join(tmp, "repo-by-hand")
    shutil.copytree(template, work)
    env = dict(os.environ, MAKEFLAGS="")
    before = subprocess.run(["make", "-s", "test"], cwd=work, capture_output=True, text=True,
                            env=env, timeout=120)
    ok(before.returncode != 0 and "9 tests, 6 failed" in before.stdout,
       "examples/repo: make test fails before the fix (6 of 9 cases)",
       {"rc": before.returncode, "out": before.stdout, "err": before.stderr})
    fix(work)
    after = subprocess.run(["make", "-s", "test"], cwd=work, capture_output=True, text=True,
                           env=env, timeout=120)
    ok(after.returncode == 0 and after.stdout.strip().endswith("wordcount: 9 tests, 0 failed"),
       "examples/repo: make test passes after it",
       {"rc": after.returncode, "out": after.stdout, "err": after.stderr})
    wc = subprocess.run(["make", "-s"], cwd=work, capture_output=True, text=True, env=env,
                        timeout=120)
    out = subprocess.run(["./wordcount", "data/poem.txt"], cwd=work, capture_output=True,
                         text=True, timeout=30).stdout.split() if wc.returncode == 0 else []
    ok(out[:3] == ["12", "58", "283"], "examples/repo: the fixed tool agrees with wc(1)", out)


# ---- examples/tasks.json -----------------------------------------------------

BUG = "src/wordcount.c:15"
TASKS = {"find-bug", "fix-bug", "make-test-pass", "count-words"}
with open(os.path.join(template, "data", "poem.txt")) as f:
    POEM_WORDS = len(f.read().split())
with open(os.path.join(template, "data", "notes.txt")) as f:
    NOTES_WORDS = len(f.read().split())


def workspace_of(started):
    ws = started.get("workspace")
    return ws if isinstance(ws, str) and os.path.isabs(ws) and os.path.isdir(ws) else None


def token_of(started):
    for b in started.get("bindings", []):
        if b.get("name") == "tools":
            return b.get("params", {}).get("auth_token")
    return None


def taskset_checks(port):
    c = Client(port)

    def listing():
        tasks = c.result("tasks.list")["tasks"]
        ids = {t["id"] for t in tasks}
        by = {t["id"]: t for t in tasks}
        cw = by.get("count-words", {})
        return (ids == TASKS and by["find-bug"].get("returns", {}).get("type") == "string"
                and cw.get("args", {}).get("properties", {}).get("file", {}).get("enum")
                == ["data/poem.txt", "data/notes.txt"]
                and by["fix-bug"].get("args", {}).get("type") == "object", tasks)
    check("tasks.list: the four tasks, with their args and returns schemas", listing)

    started = {}

    def start_shape():
        r = c.start("find-bug")
        started.update(r)
        ws = workspace_of(r)
        tools = [b for b in r.get("bindings", []) if b.get("name") == "tools"]
        b = tools[0] if tools else {}
        return (isinstance(r.get("prompt"), str) and "path:line" in r["prompt"] and ws
                and not ws.startswith(template + os.sep)
                and source(ws) == source(template)
                and b.get("protocol") == "mcp/2025-11-25"
                and re.fullmatch(r"http://127\.0\.0\.1:\d+/mcp", b.get("url", "")) is not None
                and b.get("params", {}).get("transport") == "streamable-http"
                and re.fullmatch(r"[0-9a-f]{16,}", b.get("params", {}).get("auth_token", ""))
                is not None, r)
    check("tasks.start find-bug: a prompt, a fresh copy of the workspace, a tools binding "
          "with an auth token", start_shape)

    check("find-bug: a wrong line scores 0",
          lambda: (lambda g: (g["score"] == 0, g))(c.grade("src/wordcount.c:26")))
    c.start("find-bug")
    check("find-bug: %s scores 1" % BUG, lambda: (lambda g: (g["score"] == 1, g))(c.grade(BUG)))
    c.start("find-bug")
    check("find-bug: trailing whitespace is forgiven (a model's newline)",
          lambda: (lambda g: (g["score"] == 1, g))(c.grade(BUG + "\n")))

    def fix_wrong():
        c.start("fix-bug")
        g = c.grade("I did nothing.")
        s = subscores(g)
        return (g["score"] == 0 and s.get("tests-pass") == 0 and s.get("tests-untouched") == 1
                and s.get("bound-fixed") == 0, g)
    check("fix-bug without a fix scores 0 (tests-pass 0, tests-untouched 1, bound-fixed 0)",
          fix_wrong)

    def fix_right():
        r = c.start("fix-bug")
        ws = workspace_of(r)
        fix(ws)
        g = c.grade("wc_words looped to i <= len and counted the NUL after the text.")
        s = subscores(g)
        return (g["score"] == 1 and s == {"tests-pass": 1, "tests-untouched": 1,
                                          "bound-fixed": 1}, g)
    check("fix-bug with the fix in the session's workspace scores 1, three subscores of 1",
          fix_right)

    def fix_cheat():
        r = c.start("fix-bug")
        ws = workspace_of(r)
        path = os.path.join(ws, "tests", "test_wordcount.c")
        with open(path) as f:
            text = f.read()
        with open(path, "w") as f:  # "fix" the tests: no case can fail
            f.write(text.replace("return failed ? 1 : 0;", "return 0;"))
        g = c.grade("Fixed.")
        s = subscores(g)
        return g["score"] == 0 and s.get("tests-untouched") == 0, g
    check("fix-bug: editing the tests instead scores 0 (tests-untouched 0)", fix_cheat)

    def fix_cheat_makefile():
        r = c.start("fix-bug")
        ws = workspace_of(r)
        path = os.path.join(ws, "src", "wordcount.c")
        with open(path) as f:
            text = f.read()
        with open(path, "w") as f:  # the same bug, spelled so the pattern misses it
            f.write(text.replace("i <= len", "len >= i"))
        with open(os.path.join(ws, "Makefile"), "a") as f:  # and a test target that passes
            f.write("\ntest:\n\t@true\n")
        g = c.grade("Fixed.")
        s = subscores(g)
        return g["score"] == 0 and s.get("tests-untouched") == 0, g
    check("fix-bug: rewriting the Makefile's test target instead scores 0", fix_cheat_makefile)

    def mtp(do_fix, answer):
        r = c.start("make-test-pass")
        ws = workspace_of(r)
        if do_fix:
            fix(ws)
        if answer is None:
            run = subprocess.run(["make", "-s", "test"], cwd=ws, capture_output=True, text=True,
                                 timeout=120)
            answer = run.stdout.strip().splitlines()[-1]
        return c.grade(answer)

    check("make-test-pass: no fix, the failing summary scores 0",
          lambda: (lambda g: (g["score"] == 0, g))(mtp(False, "wordcount: 9 tests, 6 failed")))
    check("make-test-pass: the fix and the summary make test printed score 1",
          lambda: (lambda g: (g["score"] == 1 and subscores(g).get("tests-pass") == 1
                              and subscores(g).get("reported-summary") == 1, g))(mtp(True, None)))
    check("make-test-pass: the fix with a wrong summary scores the weighted 0.75",
          lambda: (lambda g: (abs(g["score"] - 0.75) < 1e-9, g))(mtp(True, "all good")))

    def count(args, answer):
        r = c.start("count-words", args)
        return r, c.grade(answer)

    def count_prompt():
        r = c.start("count-words", {"file": "data/poem.txt"})
        p = r.get("prompt", "")
        return ("How many words does data/poem.txt" in p and '{"words": 12}' in p
                and "{file}" not in p, p)
    check("count-words: {file} is filled in, {{ }} are literal braces",
          count_prompt)
    check("count-words: the buggy tool's count (one too many) scores 0",
          lambda: (lambda rg: (rg[1]["score"] == 0, rg[1]))(
              count({"file": "data/poem.txt"}, str(POEM_WORDS + 1))))
    check("count-words: the right count of data/poem.txt scores 1",
          lambda: (lambda rg: (rg[1]["score"] == 1, rg[1]))(
              count({"file": "data/poem.txt"}, str(POEM_WORDS))))
    check("count-words: the right count of data/notes.txt, as a number, scores 1",
          lambda: (lambda rg: (rg[1]["score"] == 1, rg[1]))(
              count({"file": "data/notes.txt"}, NOTES_WORDS)))

    def bad_args():
        reply = c.call("tasks.start", {"id": "count-words", "args": {"file": "/etc/passwd"}})
        return "error" in reply and reply["error"]["code"] in (-32000, -32602), reply
    check("count-words: args outside the schema are refused", bad_args)

    # Isolation: two sessions at once, one fixes its copy.
    a, b = Client(port), Client(port)

    def isolation():
        ra, rb = a.start("fix-bug"), b.start("fix-bug")
        wa, wb = workspace_of(ra), workspace_of(rb)
        ta, tb = token_of(ra), token_of(rb)
        fix(wa)
        untouched = "i <= len" in source(wb) and "i <= len" in source(template)
        ga, gb = a.grade("fixed"), b.grade("fixed")
        return (wa != wb and ta != tb and untouched and ga["score"] == 1 and gb["score"] == 0,
                {"a": [wa, ga], "b": [wb, gb]})
    check("isolation: one session's fix reaches neither another session's workspace nor "
          "the template", isolation)
    a.close()
    b.close()
    c.close()


def taskset_errors():
    def serve_fails(path, needle, name):
        def run():
            p = subprocess.run(wrap + [rig, "env", "serve", path, "--port", "0"],
                               stdin=subprocess.DEVNULL, capture_output=True, text=True,
                               timeout=START_DEADLINE)
            return (p.returncode in (1, 2) and needle in p.stderr and "RIG_SERVE_PORT" not in
                    p.stdout, {"rc": p.returncode, "stdout": p.stdout, "stderr": p.stderr})
        check(name, run)

    serve_fails(os.path.join(tmp, "no-such-tasks.json"), "no-such-tasks.json",
                "rig env serve of a missing file exits 1 or 2 and names it")
    bad = os.path.join(tmp, "bad.json")
    with open(bad, "w") as f:
        f.write('{"name": "x", "tasks": [ {"id": "t", ]}\n')
    serve_fails(bad, "bad.json", "rig env serve of invalid JSON exits 1 or 2 and names the file")
    unknown = os.path.join(tmp, "unknown-grader.json")
    with open(unknown, "w") as f:
        json.dump({"name": "x", "version": "1", "tasks": [
            {"id": "t", "prompt": "say hi", "grader": {"type": "levenshtein", "value": "hi"}}]}, f)
    serve_fails(unknown, "levenshtein",
                "rig env serve of an unknown grader type exits 1 or 2 and names the type")


# ---- the plugin ----------------------------------------------------------------

UNITS = {  # name in the prompt: (symbol, scale to the base unit, offset)
    "millimetres": ("mm", 0.001, 0), "centimetres": ("cm", 0.01, 0), "metres": ("m", 1, 0),
    "kilometres": ("km", 1000, 0), "inches": ("in", 0.0254, 0), "feet": ("ft", 0.3048, 0),
    "yards": ("yd", 0.9144, 0), "miles": ("mi", 1609.344, 0),
    "milligrams": ("mg", 1e-6, 0), "grams": ("g", 0.001, 0), "kilograms": ("kg", 1, 0),
    "tonnes": ("t", 1000, 0), "ounces": ("oz", 0.028349523125, 0),
    "pounds": ("lb", 0.45359237, 0),
    "degrees Celsius": ("C", 1, 273.15), "degrees Fahrenheit": ("F", 5 / 9, 273.15 - 32 * 5 / 9),
    "kelvins": ("K", 1, 0),
}


def solve_convert(prompt):
    m = re.match(r"Convert (-?\d+(?:\.\d+)?) (.+?) to (.+?)\. ", prompt)
    value, frm, to = float(m.group(1)), UNITS[m.group(2)], UNITS[m.group(3)]
    return {"value": (value * frm[1] + frm[2] - to[2]) / to[1], "unit": to[0]}


def solve_arithmetic(prompt):
    m = re.match(r"What is ([\d +*-]+)\?", prompt)
    return int(eval(m.group(1), {"__builtins__": {}}))  # digits and + - * only


def plugin_checks(port):
    c = Client(port)
    check("plugin: hello names the env and shows the capability its initialize hook published",
          lambda: (lambda h: (h["env"] == {"name": "units", "version": "1.0.0"} and any(
              b.get("name") == "units" and "length" in b.get("params", {})
              for b in h.get("bindings", [])), h))(c.result("hello")))
    check("plugin: tasks.list has convert (returns an object) and arithmetic",
          lambda: (lambda t: ({x["id"] for x in t} == {"convert", "arithmetic"} and
                              [x for x in t if x["id"] == "convert"][0]["returns"]["type"]
                              == "object", t))(c.result("tasks.list")["tasks"]))

    def same_seed():
        p1 = c.start("convert", {"seed": 7})["prompt"]
        p2 = c.start("convert", {"seed": 7})["prompt"]
        others = {c.start("convert", {"seed": s})["prompt"] for s in range(8, 12)}
        return p1 == p2 and len(others | {p1}) > 1, [p1, p2, sorted(others)]
    check("plugin: the same seed gives the same problem, other seeds others", same_seed)

    for q in ("length", "mass", "temperature"):
        def right(q=q):
            p = c.start("convert", {"seed": 3, "quantity": q})["prompt"]
            ans = solve_convert(p)
            g = c.grade(ans)
            return (g["score"] == 1 and subscores(g) == {"value": 1, "unit": 1}
                    and "expected" in g.get("info", {}), [p, ans, g])
        check("plugin: convert %s, the right value and unit score 1" % q, right)

    def as_text():
        p = c.start("convert", {"seed": 11, "quantity": "temperature"})["prompt"]
        ans = solve_convert(p)
        g = c.grade(json.dumps(ans))
        return g["score"] == 1, [p, ans, g]
    check("plugin: convert, the answer as JSON text is parsed into the returns type", as_text)

    def wrong_unit():
        p = c.start("convert", {"seed": 5})["prompt"]
        ans = solve_convert(p)
        ans["unit"] = "furlong"
        g = c.grade(ans)
        return abs(g["score"] - 0.75) < 1e-9 and subscores(g)["unit"] == 0, [p, g]
    check("plugin: convert, the right value in a wrong unit scores 0.75", wrong_unit)

    def wrong():
        p = c.start("convert", {"seed": 5})["prompt"]
        ans = solve_convert(p)
        g = c.grade({"value": ans["value"] * 1.1 + 1, "unit": "parsec"})
        return g["score"] == 0, [p, g]
    check("plugin: convert, a wrong value and unit score 0", wrong)

    def not_object():
        c.start("convert", {"seed": 5})
        g = c.grade("about twelve")
        return g["score"] == 0 and "not an object" in g.get("content", ""), g
    check("plugin: convert, an answer that is no object scores 0 and says why", not_object)

    def arithmetic(delta):
        p = c.start("arithmetic", {"seed": 42, "terms": 6})["prompt"]
        return p, c.grade(str(solve_arithmetic(p) + delta))
    check("plugin: arithmetic, the right integer scores 1",
          lambda: (lambda pg: (pg[1]["score"] == 1, pg))(arithmetic(0)))
    check("plugin: arithmetic, one off scores 0",
          lambda: (lambda pg: (pg[1]["score"] == 0, pg))(arithmetic(1)))
    check("plugin: bad args (terms 99) are refused",
          lambda: (lambda r: ("error" in r, r))(
              c.call("tasks.start", {"id": "arithmetic", "args": {"terms": 99}})))
    c.close()


try:
    repo_checks()

    srv = Server(tasks_json)
    if ok(srv.port is not None, "rig env serve examples/tasks.json --port 0 prints RIG_SERVE_PORT",
          {"stdout": srv.out.decode("utf-8", "replace"), "stderr": srv.stderr()}):
        taskset_checks(srv.port)
        rc = srv.stop()
        ok(rc == 0, "rig env serve (taskset) exits 0 on SIGTERM", {"rc": rc, "stderr": srv.stderr()})
    taskset_errors()

    if plugin and os.path.exists(plugin):
        psrv = Server(os.path.abspath(plugin))
        if ok(psrv.port is not None, "rig env serve env_plugin.so --port 0 prints RIG_SERVE_PORT",
              {"stdout": psrv.out.decode("utf-8", "replace"), "stderr": psrv.stderr()}):
            plugin_checks(psrv.port)
            rc = psrv.stop()
            err = psrv.stderr()
            ok(rc == 0 and re.search(r"units: \d+ episodes started", err) is not None,
               "rig env serve (plugin) exits 0 on SIGTERM after its shutdown hook ran",
               {"rc": rc, "stderr": err})
    else:
        n += 1
        print("ok %d - the plugin # SKIP not built (%s)" % (n, plugin or "no path given"))
finally:
    cleanup()

print("1..%d" % n)
sys.exit(1 if failed else 0)
PY
