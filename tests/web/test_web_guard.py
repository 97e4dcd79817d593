"""``daihinmin web`` against hostile requests and floods, as a real process on 127.0.0.1.

Other origins may not change state or open sockets; publishing needs the token the app
prints; bodies are refused while they are read; uploads go one at a time per client; tables
are capped in all and per client address, and expire when no page has them open; sockets per
client address are capped; every malformed frame is answered and the socket lives on; the
spectators of a table are sent one shared snapshot per change, and a spectator coming adds
no message for the others.  (The CPU and memory these cost are benchmark figures, not
asserted here.)
"""

from __future__ import annotations

import http.client
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio
from trio_websocket import ConnectionClosed, HandshakeError, open_websocket_url
from webapp import WebProcess, web_process

FOREIGN = "http://127.0.0.1:18081"  # another origin on this machine (another port)


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebProcess]:
    with web_process(tmp_path_factory.mktemp("guard")) as app:
        yield app


def request(app: WebProcess, method: str, path: str, body: bytes = b"",
            headers: dict[str, str] | None = None, source: str = "127.0.0.1"
            ) -> tuple[int, Any]:
    host, port = app.base[len("http://"):].split(":")
    con = http.client.HTTPConnection(host, int(port), timeout=60, source_address=(source, 0))
    try:
        con.request(method, path, body=body, headers=headers or {})
        response = con.getresponse()
        return response.status, json.loads(response.read() or b"null")
    finally:
        con.close()


def new_room(app: WebProcess, source: str = "127.0.0.1",
             origin: str | None = None) -> tuple[int, Any]:
    headers = {"Content-Type": "application/json"}
    if origin is not None:
        headers["Origin"] = origin
    return request(app, "POST", "/api/tables/new", b'{"mode": "room"}', headers,
                   source)


def close_code(closed: ConnectionClosed) -> int | None:
    return None if closed.reason is None else closed.reason.code


def tables(app: WebProcess) -> list[dict[str, Any]]:
    return list(request(app, "GET", "/api/tables")[1]["tables"])


def test_other_origins_may_not_change_state(web: WebProcess) -> None:
    port = web.base.rsplit(":", 1)[1]
    assert new_room(web, origin=FOREIGN)[0] == 403
    assert new_room(web, origin="null")[0] == 403
    status, made = new_room(web, origin=web.base)
    assert status == 200
    assert new_room(web, origin=f"http://localhost:{port}")[0] == 200
    join = f"/api/tables/{made['table']}/join"
    assert request(web, "POST", join, b"{}", {"Origin": FOREIGN})[0] == 403
    assert request(web, "POST", "/api/replay", b"x", {"Origin": FOREIGN})[0] == 403

    async def sockets() -> None:
        with pytest.raises(HandshakeError):
            async with open_websocket_url(f"{web.ws}/ws/{made['table']}",
                                          extra_headers=[(b"Origin", FOREIGN.encode())]):
                pass
        async with open_websocket_url(f"{web.ws}/ws/{made['table']}",
                                      extra_headers=[(b"Origin", web.base.encode())]) as ws:
            assert json.loads(await ws.get_message())["type"] == "state"

    trio.run(sockets)


def test_publishing_needs_the_token_and_bad_frames_get_answers(web: WebProcess) -> None:
    async def run() -> None:
        for query in ("", "?token=guess"):
            async with open_websocket_url(f"{web.ws}/ws/publish{query}") as ws:
                refused = json.loads(await ws.get_message())
                assert refused["type"] == "refused" and "token" in refused["text"]
                with pytest.raises(ConnectionClosed) as closed:
                    await ws.get_message()
                assert close_code(closed.value) == 4403
        url = f"{web.ws}/ws/publish?token={web.token}"
        async with open_websocket_url(url) as ws:  # impossible numbers in the hello
            await ws.send_message('{"type": "hello", "players": 5, "games": 1e999}')
            refused = json.loads(await ws.get_message())
            assert refused["type"] == "refused" and "games" in refused["text"]
            with pytest.raises(ConnectionClosed) as closed:
                await ws.get_message()
            assert close_code(closed.value) == 4404  # not 1011 (a crash)
        async with open_websocket_url(url) as ws:
            await ws.send_message(json.dumps({"type": "hello", "players": 3, "games": 2}))
            for bad in (b"\x00binary", "[" * 50_000, '{"type": "state", "x": NaN}', "{}"):
                await ws.send_message(bad)
                assert json.loads(await ws.get_message())["type"] == "error"
            state = {"type": "state", "game": 2, "seats": [{"name": "a"}] * 3}
            await ws.send_message(json.dumps(state))
            with trio.fail_after(30):
                while not any(t["mode"] == "live match" and t["game"] == 2
                              for t in await trio.to_thread.run_sync(tables, web)):
                    await trio.sleep(0.05)

    trio.run(run)


def test_a_page_socket_answers_every_malformed_frame(web: WebProcess) -> None:
    table = new_room(web)[1]["table"]

    async def run() -> None:
        async with open_websocket_url(f"{web.ws}/ws/{table}") as ws:
            assert json.loads(await ws.get_message())["type"] == "state"
            for bad in (b"\x01\x02", "[" * 50_000, "x" * 10_000, '{"type": "start"}'):
                await ws.send_message(bad)
                assert json.loads(await ws.get_message())["type"] == "error"

    trio.run(run)


def test_bodies_are_refused_while_they_are_read(web: WebProcess) -> None:
    """A huge JSON body (no length given) is cut off within the limit: the app's peak memory
    stays where it was; a declared one is refused before it is read."""
    def peak() -> int:
        status = Path(f"/proc/{web.proc.pid}/status").read_text()
        return int(next(line.split()[1] for line in status.splitlines()
                        if line.startswith("VmHWM:")))  # kB

    before = peak()
    host, port = web.base[len("http://"):].split(":")
    con = http.client.HTTPConnection(host, int(port), timeout=60)
    chunk = b" " * (1 << 20)
    try:
        con.request("POST", "/api/tables/new", body=(chunk for _ in range(300)),
                    encode_chunked=True, headers={"Content-Type": "application/json"})
        response = con.getresponse()
        assert response.status == 400 and "too large" in response.read().decode()
    except (BrokenPipeError, ConnectionResetError):
        pass  # the app stopped reading and closed: the refusal did not wait for the end
    finally:
        con.close()
    assert peak() - before < 64 * 1024  # kB: far below the 300 MB sent
    status, answer = request(web, "POST", "/api/replay", b"", {"Content-Length": "99999999"})
    assert status == 413 and "replay --html" in answer["error"]


def test_uploads_go_one_at_a_time_per_client(web: WebProcess) -> None:
    host, port = web.base[len("http://"):].split(":")
    slow = socket.create_connection((host, int(port)), timeout=60)
    try:  # an upload whose body is still coming holds its client's slot
        slow.sendall(b"POST /api/replay HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n"
                     + b"{" * 100)
        deadline = time.monotonic() + 60
        while (status := request(web, "POST", "/api/replay", b"{}")[0]) != 429:
            assert time.monotonic() < deadline, status
            time.sleep(0.05)
        assert request(web, "POST", "/api/replay", b"{}", source="127.0.0.2")[0] == 400
    finally:
        slow.close()
    deadline = time.monotonic() + 60
    while (status := request(web, "POST", "/api/replay", b"{}")[0]) != 400:
        assert time.monotonic() < deadline, status  # the slot is given back
        time.sleep(0.05)


def test_spectators_share_one_snapshot_per_change(web: WebProcess) -> None:
    """200 spectators of one table: each is sent the table once on coming (the others get
    nothing for it), then exactly one snapshot per change, the same text for all."""
    table = new_room(web)[1]["table"]
    count = 200

    async def run() -> list[list[str]]:
        received: list[list[str]] = [[] for _ in range(count)]
        joined = trio.Event()
        all_in = trio.Semaphore(0)

        async def spectator(i: int) -> None:
            async with open_websocket_url(f"{web.ws}/ws/{table}") as ws:
                received[i].append(str(await ws.get_message()))
                all_in.release()
                await joined.wait()
                while "Zed" not in received[i][-1]:
                    received[i].append(str(await ws.get_message()))
                with trio.move_on_after(0.5):  # nothing more comes for this one change
                    received[i].append(str(await ws.get_message()))

        with trio.fail_after(120):
            async with trio.open_nursery() as nursery:
                for i in range(count):
                    nursery.start_soon(spectator, i)
                for _ in range(count):
                    await all_in.acquire()
                status, _ = await trio.to_thread.run_sync(lambda: request(
                    web, "POST", f"/api/tables/{table}/join", b'{"name": "Zed"}',
                    {"Content-Type": "application/json"}))
                assert status == 200
                joined.set()
        return received

    received = trio.run(run)
    assert all(len(messages) == 2 for messages in received), {len(m) for m in received}
    assert len({messages[1] for messages in received}) == 1  # one snapshot, shared


@pytest.fixture(scope="module")
def capped(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebProcess]:
    with web_process(tmp_path_factory.mktemp("capped"), "--tables-per-client", "3",
                     "--max-tables", "5", "--table-idle", "1", "--sockets-per-client",
                     "6") as app:
        yield app


def test_tables_are_capped_and_expire(capped: WebProcess) -> None:
    """A flood of 300 new rooms from one address makes 3; more addresses make 5 in all;
    rooms nobody has open are closed and forgotten, and new ones can be made again."""
    async def run() -> None:
        async with trio.open_nursery() as nursery:
            done = trio.Event()
            opened = trio.Semaphore(0)

            async def keep_open(table: str) -> None:  # a table with a page open stays
                async with open_websocket_url(f"{capped.ws}/ws/{table}") as ws:
                    await ws.get_message()
                    opened.release()
                    await done.wait()

            async def make(count: int, source: str) -> list[int]:
                answers = []
                for _ in range(count):
                    status, made = await trio.to_thread.run_sync(new_room, capped, source)
                    answers.append(status)
                    if status == 200:
                        nursery.start_soon(keep_open, made["table"])
                        await opened.acquire()
                return answers

            first = await make(300, "127.0.0.1")
            assert first.count(200) == 3 and first.count(429) == 297
            others = await make(3, "127.0.0.2") + await make(3, "127.0.0.3")
            assert others.count(200) == 2 and others.count(429) == 4
            assert len(await trio.to_thread.run_sync(tables, capped)) == 5
            done.set()

    trio.run(run)
    deadline = time.monotonic() + 60
    while tables(capped):  # every page closed: the rooms expire (--table-idle 1)
        assert time.monotonic() < deadline, tables(capped)
        time.sleep(0.2)
    assert new_room(capped)[0] == 200


def test_sockets_per_client_are_capped(capped: WebProcess) -> None:
    table = new_room(capped, source="127.0.0.4")[1]["table"]

    async def run() -> None:
        async with trio.open_nursery() as nursery:
            opened = trio.Semaphore(0)
            done = trio.Event()

            async def hold() -> None:
                async with open_websocket_url(f"{capped.ws}/ws/{table}") as ws:
                    await ws.get_message()
                    opened.release()
                    await done.wait()

            for _ in range(6):
                nursery.start_soon(hold)
            for _ in range(6):
                await opened.acquire()
            async with open_websocket_url(f"{capped.ws}/ws/{table}") as ws:
                refused = json.loads(await ws.get_message())
                assert refused["type"] == "refused" and "too many" in refused["text"]
                with pytest.raises(ConnectionClosed) as closed:
                    await ws.get_message()
                assert close_code(closed.value) == 4429
            done.set()

    trio.run(run)
