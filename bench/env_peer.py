#!/usr/bin/env python3
"""env_peer.py — the control channel benchmark's peer: a stand-in for HUD's
SDK server (the anchor of REFERENCE 1), which cannot be installed here (no
PyPI). It is built the way the anchor is: asyncio streams, one coroutine per
connection reading lines with StreamReader.readline, the json module for
every frame, a dict of sessions, and a task as an async generator that
yields its prompt at start and its reward when sent the answer. Sessions
are parked when their socket drops and resumed by hello {session_id} or a
bare tasks.grade, as the anchor does; like the anchor it keeps parked
sessions until the process exits and drops a connection on a non-JSON line.

    python3 env_peer.py TASKSET.json [--host HOST] [--port PORT]

prints HUD_SERVE_PORT=<port> once bound. It serves the taskset's tasks
whose grader is {"type": "exact", "value": template}; prompts and values
are templates whose {name} placeholders are the args (str.format_map).
"""
import argparse
import asyncio
import json
import secrets
import sys


class Session:
    __slots__ = ("id", "writer", "task", "gen")

    def __init__(self, sid):
        self.id = sid
        self.writer = None  # None when parked
        self.task = None    # the template in progress
        self.gen = None     # its async generator, suspended after the prompt


def load_taskset(path):
    with open(path, encoding="utf-8") as f:
        spec = json.load(f)
    tasks = {}
    for t in spec["tasks"]:
        g = t.get("grader", {})
        if g.get("type") != "exact":
            raise SystemExit(f"env_peer: task {t['id']!r}: only exact graders are served")
        tasks[t["id"]] = t
    return spec.get("name", "environment"), spec.get("version", "0.0.1"), tasks


async def episode(task, args):
    """A task as the anchor writes one: yield the prompt, receive the
    answer, yield the reward."""
    answer = yield task["prompt"].format_map(args)
    want = task["grader"]["value"].format_map(args)
    yield 1.0 if answer == want else 0.0


class Server:
    def __init__(self, name, version, tasks):
        self.name, self.version, self.tasks = name, version, tasks
        self.sessions = {}

    def new_session(self):
        while True:
            sid = "sess-" + secrets.token_hex(4)
            if sid not in self.sessions:
                s = Session(sid)
                self.sessions[sid] = s
                return s

    def parked(self):
        return [s for s in self.sessions.values() if s.writer is None and s.gen is not None]

    async def end(self, s):
        if s.gen is not None:
            await s.gen.aclose()
        s.gen = s.task = None

    def hello_result(self, sess):
        return {"session_id": sess.id, "env": {"name": self.name, "version": self.version}, "bindings": []}

    def adopt(self, conn, other):
        """The connection takes over parked session `other`; its own goes."""
        old = conn.sess
        other.writer = conn.writer
        conn.sess = other
        if old.gen is None:
            self.sessions.pop(old.id, None)
        else:
            old.writer = None

    async def handle(self, reader, writer):
        conn = Conn(self.new_session(), writer)
        conn.sess.writer = writer
        try:
            while True:
                line = await reader.readline()
                if not line:
                    break
                msg = json.loads(line)  # the anchor: a bad line ends the connection
                mid = msg.get("id")
                try:
                    result = await self.dispatch(conn, msg.get("method"), msg.get("params") or {})
                    reply = {"jsonrpc": "2.0", "id": mid, "result": result}
                except RpcError as e:
                    reply = {"jsonrpc": "2.0", "id": mid, "error": {"code": e.code, "message": e.message}}
                if mid is not None:
                    writer.write((json.dumps(reply) + "\n").encode())
                    await writer.drain()
                if msg.get("method") == "bye":
                    break
        except (ConnectionError, ValueError):
            pass
        finally:
            sess = conn.sess
            sess.writer = None
            if sess.gen is None:  # nothing to keep: forget it
                self.sessions.pop(sess.id, None)
            writer.close()

    async def dispatch(self, conn, method, params):
        sess = conn.sess
        if method == "hello":
            sid = params.get("session_id")
            if sid is not None and sid != sess.id:
                other = self.sessions.get(sid)
                if other is None:
                    raise RpcError(-32600, "unknown session")
                if other.writer is not None:
                    raise RpcError(-32600, f"session '{sid}' has a live connection")
                self.adopt(conn, other)
            return self.hello_result(conn.sess)
        if method == "tasks.list":
            return {"tasks": [{"id": t["id"], "description": t.get("description", ""),
                               "args": t.get("args", {"type": "object"})} for t in self.tasks.values()]}
        if method == "tasks.start":
            tid = params.get("id")
            if not isinstance(tid, str):
                raise RpcError(-32602, "'id' must be a string")
            args = params.get("args", {})
            if not isinstance(args, dict):
                raise RpcError(-32602, "'args' must be an object")
            task = self.tasks.get(tid)
            if task is None:
                raise RpcError(-32602, f"unknown task: '{tid}'")
            await self.end(sess)
            gen = episode(task, args)
            try:
                prompt = await gen.__anext__()
            except Exception as e:
                raise RpcError(-32000, f"task '{tid}' failed to start: {e}")
            sess.task, sess.gen = task, gen
            return {"prompt": prompt}
        if method == "tasks.grade":
            if sess.gen is None:
                parked = self.parked()
                if len(parked) > 1:
                    raise RpcError(-32600, f"{len(parked)} sessions are parked: "
                                   + ", ".join(p.id for p in parked))
                if not parked:
                    raise RpcError(-32600, "no task in progress")
                self.adopt(conn, parked[0])
                sess = conn.sess
            gen = sess.gen
            sess.gen = sess.task = None
            try:
                reward = await gen.asend(params.get("answer"))
            except Exception as e:
                raise RpcError(-32000, f"grader failed: {e}")
            finally:
                await gen.aclose()
            return {"score": float(reward)}
        if method == "tasks.cancel":
            await self.end(sess)
            return {"cancelled": True}
        if method == "bye":
            await self.end(sess)
            return {"goodbye": True}
        raise RpcError(-32601, f"Method not found: '{method}'")


class Conn:
    __slots__ = ("sess", "writer")

    def __init__(self, sess, writer):
        self.sess, self.writer = sess, writer


class RpcError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code, self.message = code, message


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("taskset")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0)
    a = ap.parse_args()
    srv = Server(*load_taskset(a.taskset))
    server = await asyncio.start_server(srv.handle, a.host, a.port, limit=16 << 20)
    print(f"HUD_SERVE_PORT={server.sockets[0].getsockname()[1]}", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
